-- API client tokens and other authentications. Only a hash of each client token is stored
-- (base64url(sha256(token))); the token itself is shown once, when it is created.
CREATE TABLE authentications (
  id                  TEXT    NOT NULL PRIMARY KEY,
  method              INTEGER NOT NULL,
  hashed_client_token TEXT    NOT NULL UNIQUE,
  metadata            TEXT    NOT NULL DEFAULT '{}',
  expires_at          INTEGER NULL,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);
CREATE INDEX authentications_method_created ON authentications (method, created_at);
CREATE INDEX authentications_expires ON authentications (expires_at);


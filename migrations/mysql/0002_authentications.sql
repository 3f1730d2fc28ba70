-- API client tokens and other authentications. Only a hash of each client token is stored
-- (base64url(sha256(token))); the token itself is shown once, when it is created.
CREATE TABLE authentications (
  id                  VARCHAR(64)  NOT NULL PRIMARY KEY,
  method              SMALLINT     NOT NULL,
  hashed_client_token VARCHAR(255) NOT NULL UNIQUE,
  metadata            MEDIUMTEXT NOT NULL,
  expires_at          BIGINT       NULL,
  created_at          BIGINT       NOT NULL,
  updated_at          BIGINT       NOT NULL,
  INDEX authentications_method_created (method, created_at),
  INDEX authentications_expires (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Pennon's schema on SQLite. Timestamps are epoch microseconds; enums are Flipt's proto numbers;
-- booleans are 0/1. Every write bumps namespaces.revision in the same transaction, which is how
-- evaluation snapshots and the client-side snapshot ETag notice a change.

CREATE TABLE namespaces (
  key         TEXT    NOT NULL PRIMARY KEY,
  name        TEXT    NOT NULL,
  description TEXT    NOT NULL DEFAULT '',
  protected   INTEGER NOT NULL DEFAULT 0,
  revision    INTEGER NOT NULL DEFAULT 1,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);

INSERT INTO namespaces (key, name, description, protected, revision, created_at, updated_at)
VALUES ('default', 'Default', 'Default namespace', 1, 1,
        CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER),
        CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));

CREATE TABLE flags (
  namespace_key      TEXT    NOT NULL REFERENCES namespaces (key) ON DELETE CASCADE,
  key                TEXT    NOT NULL,
  name               TEXT    NOT NULL,
  description        TEXT    NOT NULL DEFAULT '',
  enabled            INTEGER NOT NULL DEFAULT 0,
  type               INTEGER NOT NULL DEFAULT 0,
  default_variant_id TEXT    NULL,
  metadata           TEXT    NULL,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  PRIMARY KEY (namespace_key, key)
);
CREATE INDEX flags_created ON flags (namespace_key, created_at);

CREATE TABLE variants (
  id            TEXT    NOT NULL PRIMARY KEY,
  namespace_key TEXT    NOT NULL,
  flag_key      TEXT    NOT NULL,
  key           TEXT    NOT NULL,
  name          TEXT    NOT NULL DEFAULT '',
  description   TEXT    NOT NULL DEFAULT '',
  attachment    TEXT    NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (namespace_key, flag_key, key),
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, key) ON DELETE CASCADE
);

CREATE TABLE segments (
  namespace_key TEXT    NOT NULL REFERENCES namespaces (key) ON DELETE CASCADE,
  key           TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  description   TEXT    NOT NULL DEFAULT '',
  match_type    INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  PRIMARY KEY (namespace_key, key)
);
CREATE INDEX segments_created ON segments (namespace_key, created_at);

CREATE TABLE constraints (
  id            TEXT    NOT NULL PRIMARY KEY,
  namespace_key TEXT    NOT NULL,
  segment_key   TEXT    NOT NULL,
  type          INTEGER NOT NULL,
  property      TEXT    NOT NULL,
  operator      TEXT    NOT NULL,
  value         TEXT    NOT NULL DEFAULT '',
  description   TEXT    NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, key) ON DELETE CASCADE
);
CREATE INDEX constraints_segment ON constraints (namespace_key, segment_key);

CREATE TABLE rules (
  id               TEXT    NOT NULL PRIMARY KEY,
  namespace_key    TEXT    NOT NULL,
  flag_key         TEXT    NOT NULL,
  rank             INTEGER NOT NULL,
  segment_operator INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, key) ON DELETE CASCADE
);
CREATE INDEX rules_flag ON rules (namespace_key, flag_key, rank);

-- A segment in use by a rule or rollout cannot be deleted (Flipt: ON DELETE RESTRICT).
CREATE TABLE rule_segments (
  rule_id       TEXT    NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  namespace_key TEXT    NOT NULL,
  segment_key   TEXT    NOT NULL,
  position      INTEGER NOT NULL,
  PRIMARY KEY (rule_id, segment_key),
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, key) ON DELETE RESTRICT
);
CREATE INDEX rule_segments_segment ON rule_segments (namespace_key, segment_key);

CREATE TABLE distributions (
  id         TEXT    NOT NULL PRIMARY KEY,
  rule_id    TEXT    NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  variant_id TEXT    NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
  rollout    REAL    NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX distributions_rule ON distributions (rule_id, created_at);
CREATE INDEX distributions_variant ON distributions (variant_id);

CREATE TABLE rollouts (
  id                   TEXT    NOT NULL PRIMARY KEY,
  namespace_key        TEXT    NOT NULL,
  flag_key             TEXT    NOT NULL,
  type                 INTEGER NOT NULL,
  rank                 INTEGER NOT NULL,
  description          TEXT    NOT NULL DEFAULT '',
  threshold_percentage REAL    NOT NULL DEFAULT 0,
  threshold_value      INTEGER NOT NULL DEFAULT 0,
  segment_operator     INTEGER NOT NULL DEFAULT 0,
  segment_value        INTEGER NOT NULL DEFAULT 0,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, key) ON DELETE CASCADE
);
CREATE INDEX rollouts_flag ON rollouts (namespace_key, flag_key, rank);

CREATE TABLE rollout_segments (
  rollout_id    TEXT    NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
  namespace_key TEXT    NOT NULL,
  segment_key   TEXT    NOT NULL,
  position      INTEGER NOT NULL,
  PRIMARY KEY (rollout_id, segment_key),
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, key) ON DELETE RESTRICT
);
CREATE INDEX rollout_segments_segment ON rollout_segments (namespace_key, segment_key);

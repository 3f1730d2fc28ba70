-- Pennon's schema on PostgreSQL: the SQLite schema (migrations/sqlite/0001_initial.sql) with
-- PostgreSQL types. Timestamps are epoch microseconds (BIGINT); enums are Flipt's proto numbers
-- and booleans 0/1 (SMALLINT/INTEGER); percentages DOUBLE PRECISION (REAL would round 33.33).
-- Keys and ids are COLLATE "C": they sort and compare byte-wise, as on SQLite, whatever the
-- database's default collation (list order ties break on the key).

CREATE TABLE namespaces (
  key         VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
  name        TEXT         NOT NULL,
  description TEXT         NOT NULL DEFAULT '',
  protected   SMALLINT     NOT NULL DEFAULT 0,
  revision    BIGINT       NOT NULL DEFAULT 1,
  created_at  BIGINT       NOT NULL,
  updated_at  BIGINT       NOT NULL
);

INSERT INTO namespaces (key, name, description, protected, revision, created_at, updated_at)
VALUES ('default', 'Default', 'Default namespace', 1, 1,
        (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT,
        (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT);

CREATE TABLE flags (
  namespace_key      VARCHAR(255) COLLATE "C" NOT NULL REFERENCES namespaces (key) ON DELETE CASCADE,
  key                VARCHAR(255) COLLATE "C" NOT NULL,
  name               TEXT         NOT NULL,
  description        TEXT         NOT NULL DEFAULT '',
  enabled            SMALLINT     NOT NULL DEFAULT 0,
  type               SMALLINT     NOT NULL DEFAULT 0,
  default_variant_id VARCHAR(64)  COLLATE "C" NULL,
  metadata           TEXT         NULL,
  created_at         BIGINT       NOT NULL,
  updated_at         BIGINT       NOT NULL,
  PRIMARY KEY (namespace_key, key)
);
CREATE INDEX flags_created ON flags (namespace_key, created_at);

CREATE TABLE variants (
  id            VARCHAR(64)  COLLATE "C" NOT NULL PRIMARY KEY,
  namespace_key VARCHAR(255) COLLATE "C" NOT NULL,
  flag_key      VARCHAR(255) COLLATE "C" NOT NULL,
  key           VARCHAR(255) COLLATE "C" NOT NULL,
  name          TEXT         NOT NULL DEFAULT '',
  description   TEXT         NOT NULL DEFAULT '',
  attachment    TEXT         NOT NULL DEFAULT '',
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  UNIQUE (namespace_key, flag_key, key),
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, key) ON DELETE CASCADE
);

CREATE TABLE segments (
  namespace_key VARCHAR(255) COLLATE "C" NOT NULL REFERENCES namespaces (key) ON DELETE CASCADE,
  key           VARCHAR(255) COLLATE "C" NOT NULL,
  name          TEXT         NOT NULL,
  description   TEXT         NOT NULL DEFAULT '',
  match_type    SMALLINT     NOT NULL DEFAULT 0,
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  PRIMARY KEY (namespace_key, key)
);
CREATE INDEX segments_created ON segments (namespace_key, created_at);

CREATE TABLE constraints (
  id            VARCHAR(64)  COLLATE "C" NOT NULL PRIMARY KEY,
  namespace_key VARCHAR(255) COLLATE "C" NOT NULL,
  segment_key   VARCHAR(255) COLLATE "C" NOT NULL,
  type          SMALLINT     NOT NULL,
  property      VARCHAR(255) NOT NULL,
  operator      VARCHAR(255) NOT NULL,
  value         TEXT         NOT NULL DEFAULT '',
  description   TEXT         NOT NULL DEFAULT '',
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, key) ON DELETE CASCADE
);
CREATE INDEX constraints_segment ON constraints (namespace_key, segment_key);

CREATE TABLE rules (
  id               VARCHAR(64)  COLLATE "C" NOT NULL PRIMARY KEY,
  namespace_key    VARCHAR(255) COLLATE "C" NOT NULL,
  flag_key         VARCHAR(255) COLLATE "C" NOT NULL,
  rank             INTEGER      NOT NULL,
  segment_operator SMALLINT     NOT NULL DEFAULT 0,
  created_at       BIGINT       NOT NULL,
  updated_at       BIGINT       NOT NULL,
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, key) ON DELETE CASCADE
);
CREATE INDEX rules_flag ON rules (namespace_key, flag_key, rank);

-- A segment in use by a rule or rollout cannot be deleted (Flipt: ON DELETE RESTRICT).
CREATE TABLE rule_segments (
  rule_id       VARCHAR(64)  COLLATE "C" NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  namespace_key VARCHAR(255) COLLATE "C" NOT NULL,
  segment_key   VARCHAR(255) COLLATE "C" NOT NULL,
  position      INTEGER      NOT NULL,
  PRIMARY KEY (rule_id, segment_key),
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, key) ON DELETE RESTRICT
);
CREATE INDEX rule_segments_segment ON rule_segments (namespace_key, segment_key);

CREATE TABLE distributions (
  id         VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
  rule_id    VARCHAR(64) COLLATE "C" NOT NULL REFERENCES rules (id) ON DELETE CASCADE,
  variant_id VARCHAR(64) COLLATE "C" NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
  rollout    DOUBLE PRECISION NOT NULL,
  created_at BIGINT      NOT NULL,
  updated_at BIGINT      NOT NULL
);
CREATE INDEX distributions_rule ON distributions (rule_id, created_at);
CREATE INDEX distributions_variant ON distributions (variant_id);

CREATE TABLE rollouts (
  id                   VARCHAR(64)  COLLATE "C" NOT NULL PRIMARY KEY,
  namespace_key        VARCHAR(255) COLLATE "C" NOT NULL,
  flag_key             VARCHAR(255) COLLATE "C" NOT NULL,
  type                 SMALLINT     NOT NULL,
  rank                 INTEGER      NOT NULL,
  description          TEXT         NOT NULL DEFAULT '',
  threshold_percentage DOUBLE PRECISION NOT NULL DEFAULT 0,
  threshold_value      SMALLINT     NOT NULL DEFAULT 0,
  segment_operator     SMALLINT     NOT NULL DEFAULT 0,
  segment_value        SMALLINT     NOT NULL DEFAULT 0,
  created_at           BIGINT       NOT NULL,
  updated_at           BIGINT       NOT NULL,
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, key) ON DELETE CASCADE
);
CREATE INDEX rollouts_flag ON rollouts (namespace_key, flag_key, rank);

CREATE TABLE rollout_segments (
  rollout_id    VARCHAR(64)  COLLATE "C" NOT NULL REFERENCES rollouts (id) ON DELETE CASCADE,
  namespace_key VARCHAR(255) COLLATE "C" NOT NULL,
  segment_key   VARCHAR(255) COLLATE "C" NOT NULL,
  position      INTEGER      NOT NULL,
  PRIMARY KEY (rollout_id, segment_key),
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, key) ON DELETE RESTRICT
);
CREATE INDEX rollout_segments_segment ON rollout_segments (namespace_key, segment_key);

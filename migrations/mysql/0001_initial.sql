-- Pennon's schema on MySQL/MariaDB: the SQLite schema (migrations/sqlite/0001_initial.sql) with
-- MySQL types. Timestamps are epoch microseconds (BIGINT); enums are Flipt's proto numbers and
-- booleans 0/1 (SMALLINT); percentages DOUBLE (not FLOAT, which would round 33.33). Keys are
-- VARCHAR(255), ids VARCHAR(64), all utf8mb4_bin: case-sensitive and byte-ordered, as on SQLite
-- and PostgreSQL (a composite key stays under InnoDB's 3072-byte index limit). `key` and `rank`
-- are quoted: reserved words. Free text is MEDIUMTEXT (TEXT holds 64 KB, a request body up to
-- 1 MiB), without DEFAULT (MySQL refuses one on text; we always write them). MySQL commits
-- each DDL statement by itself: see migrate.ts on interrupted migrations.

CREATE TABLE namespaces (
  `key`       VARCHAR(255) NOT NULL PRIMARY KEY,
  name        MEDIUMTEXT NOT NULL,
  description MEDIUMTEXT NOT NULL,
  protected   SMALLINT     NOT NULL DEFAULT 0,
  revision    BIGINT       NOT NULL DEFAULT 1,
  created_at  BIGINT       NOT NULL,
  updated_at  BIGINT       NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO namespaces (`key`, name, description, protected, revision, created_at, updated_at)
VALUES ('default', 'Default', 'Default namespace', 1, 1,
        CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED),
        CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED));

CREATE TABLE flags (
  namespace_key      VARCHAR(255) NOT NULL,
  `key`              VARCHAR(255) NOT NULL,
  name               MEDIUMTEXT NOT NULL,
  description        MEDIUMTEXT NOT NULL,
  enabled            SMALLINT     NOT NULL DEFAULT 0,
  type               SMALLINT     NOT NULL DEFAULT 0,
  default_variant_id VARCHAR(64)  NULL,
  metadata           MEDIUMTEXT NULL,
  created_at         BIGINT       NOT NULL,
  updated_at         BIGINT       NOT NULL,
  PRIMARY KEY (namespace_key, `key`),
  INDEX flags_created (namespace_key, created_at),
  FOREIGN KEY (namespace_key) REFERENCES namespaces (`key`) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE variants (
  id            VARCHAR(64)  NOT NULL PRIMARY KEY,
  namespace_key VARCHAR(255) NOT NULL,
  flag_key      VARCHAR(255) NOT NULL,
  `key`         VARCHAR(255) NOT NULL,
  name          MEDIUMTEXT NOT NULL,
  description   MEDIUMTEXT NOT NULL,
  attachment    MEDIUMTEXT NOT NULL,
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  UNIQUE (namespace_key, flag_key, `key`),
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, `key`) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE segments (
  namespace_key VARCHAR(255) NOT NULL,
  `key`         VARCHAR(255) NOT NULL,
  name          MEDIUMTEXT NOT NULL,
  description   MEDIUMTEXT NOT NULL,
  match_type    SMALLINT     NOT NULL DEFAULT 0,
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  PRIMARY KEY (namespace_key, `key`),
  INDEX segments_created (namespace_key, created_at),
  FOREIGN KEY (namespace_key) REFERENCES namespaces (`key`) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE constraints (
  id            VARCHAR(64)  NOT NULL PRIMARY KEY,
  namespace_key VARCHAR(255) NOT NULL,
  segment_key   VARCHAR(255) NOT NULL,
  type          SMALLINT     NOT NULL,
  property      VARCHAR(255) NOT NULL,
  operator      VARCHAR(255) NOT NULL,
  value         MEDIUMTEXT NOT NULL,
  description   MEDIUMTEXT NOT NULL,
  created_at    BIGINT       NOT NULL,
  updated_at    BIGINT       NOT NULL,
  INDEX constraints_segment (namespace_key, segment_key),
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, `key`) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE rules (
  id               VARCHAR(64)  NOT NULL PRIMARY KEY,
  namespace_key    VARCHAR(255) NOT NULL,
  flag_key         VARCHAR(255) NOT NULL,
  `rank`           INTEGER      NOT NULL,
  segment_operator SMALLINT     NOT NULL DEFAULT 0,
  created_at       BIGINT       NOT NULL,
  updated_at       BIGINT       NOT NULL,
  INDEX rules_flag (namespace_key, flag_key, `rank`),
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, `key`) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A segment in use by a rule or rollout cannot be deleted (Flipt: ON DELETE RESTRICT).
CREATE TABLE rule_segments (
  rule_id       VARCHAR(64)  NOT NULL,
  namespace_key VARCHAR(255) NOT NULL,
  segment_key   VARCHAR(255) NOT NULL,
  position      INTEGER      NOT NULL,
  PRIMARY KEY (rule_id, segment_key),
  INDEX rule_segments_segment (namespace_key, segment_key),
  FOREIGN KEY (rule_id) REFERENCES rules (id) ON DELETE CASCADE,
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, `key`) ON DELETE RESTRICT
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE distributions (
  id         VARCHAR(64) NOT NULL PRIMARY KEY,
  rule_id    VARCHAR(64) NOT NULL,
  variant_id VARCHAR(64) NOT NULL,
  rollout    DOUBLE      NOT NULL,
  created_at BIGINT      NOT NULL,
  updated_at BIGINT      NOT NULL,
  INDEX distributions_rule (rule_id, created_at),
  INDEX distributions_variant (variant_id),
  FOREIGN KEY (rule_id) REFERENCES rules (id) ON DELETE CASCADE,
  FOREIGN KEY (variant_id) REFERENCES variants (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE rollouts (
  id                   VARCHAR(64)  NOT NULL PRIMARY KEY,
  namespace_key        VARCHAR(255) NOT NULL,
  flag_key             VARCHAR(255) NOT NULL,
  type                 SMALLINT     NOT NULL,
  `rank`               INTEGER      NOT NULL,
  description          MEDIUMTEXT NOT NULL,
  threshold_percentage DOUBLE       NOT NULL DEFAULT 0,
  threshold_value      SMALLINT     NOT NULL DEFAULT 0,
  segment_operator     SMALLINT     NOT NULL DEFAULT 0,
  segment_value        SMALLINT     NOT NULL DEFAULT 0,
  created_at           BIGINT       NOT NULL,
  updated_at           BIGINT       NOT NULL,
  INDEX rollouts_flag (namespace_key, flag_key, `rank`),
  FOREIGN KEY (namespace_key, flag_key) REFERENCES flags (namespace_key, `key`) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE rollout_segments (
  rollout_id    VARCHAR(64)  NOT NULL,
  namespace_key VARCHAR(255) NOT NULL,
  segment_key   VARCHAR(255) NOT NULL,
  position      INTEGER      NOT NULL,
  PRIMARY KEY (rollout_id, segment_key),
  INDEX rollout_segments_segment (namespace_key, segment_key),
  FOREIGN KEY (rollout_id) REFERENCES rollouts (id) ON DELETE CASCADE,
  FOREIGN KEY (namespace_key, segment_key) REFERENCES segments (namespace_key, `key`) ON DELETE RESTRICT
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

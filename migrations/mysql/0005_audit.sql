-- The audit trail: one row per change, written in the change's own transaction (so there is
-- never a change without its event, nor an event without its change). Ids are UUIDv7, so the
-- primary key's order is the order of time; objects are stored as JSON, before and after.
CREATE TABLE audit_events (
  id            VARCHAR(36) NOT NULL PRIMARY KEY,
  namespace_key VARCHAR(255) NOT NULL,
  type          VARCHAR(32) NOT NULL,
  action        VARCHAR(32) NOT NULL,
  resource_key  VARCHAR(255) NOT NULL,
  object_id     VARCHAR(255),
  actor         LONGTEXT NOT NULL,
  actor_id      VARCHAR(255) NOT NULL,
  actor_name    VARCHAR(255) NOT NULL,
  source        VARCHAR(16) NOT NULL,
  request_id    VARCHAR(255),
  payload       LONGTEXT,
  previous      LONGTEXT,
  created_at    BIGINT NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX audit_events_namespace ON audit_events (namespace_key, id);
CREATE INDEX audit_events_resource ON audit_events (namespace_key, resource_key, id);
CREATE INDEX audit_events_created ON audit_events (created_at);

-- The outbox: an event waits here for each sink configured when it was written, until that sink
-- has acknowledged it (the row is deleted). Delivery resumes from here after any restart.
CREATE TABLE audit_outbox (
  sink            VARCHAR(255) NOT NULL,
  event_id        VARCHAR(36) NOT NULL,
  attempts        INTEGER NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  last_error      LONGTEXT,
  PRIMARY KEY (sink, event_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Who delivers a sink's events, or runs the retention job, for now: one instance at a time,
-- so events reach a sink in order and the job runs once however many instances share the database.
CREATE TABLE audit_leases (
  name       VARCHAR(255) NOT NULL PRIMARY KEY,
  holder     VARCHAR(255) NOT NULL,
  expires_at BIGINT NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

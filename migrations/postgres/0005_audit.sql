-- The audit trail: one row per change, written in the change's own transaction (so there is
-- never a change without its event, nor an event without its change). Ids are UUIDv7, so the
-- primary key's order is the order of time; objects are stored as JSON, before and after.
CREATE TABLE audit_events (
  id            VARCHAR(36) COLLATE "C" NOT NULL PRIMARY KEY,
  namespace_key VARCHAR(255) COLLATE "C" NOT NULL,
  type          VARCHAR(32) NOT NULL,
  action        VARCHAR(32) NOT NULL,
  resource_key  VARCHAR(255) COLLATE "C" NOT NULL,
  object_id     VARCHAR(255) COLLATE "C",
  actor         TEXT NOT NULL,
  actor_id      VARCHAR(255) COLLATE "C" NOT NULL,
  actor_name    VARCHAR(255) COLLATE "C" NOT NULL,
  source        VARCHAR(16) NOT NULL,
  request_id    VARCHAR(255) COLLATE "C",
  payload       TEXT,
  previous      TEXT,
  created_at    BIGINT NOT NULL
);
CREATE INDEX audit_events_namespace ON audit_events (namespace_key, id);
CREATE INDEX audit_events_resource ON audit_events (namespace_key, resource_key, id);
CREATE INDEX audit_events_created ON audit_events (created_at);

-- The outbox: an event waits here for each sink configured when it was written, until that sink
-- has acknowledged it (the row is deleted). Delivery resumes from here after any restart.
CREATE TABLE audit_outbox (
  sink            VARCHAR(255) COLLATE "C" NOT NULL,
  event_id        VARCHAR(36) COLLATE "C" NOT NULL,
  attempts        INTEGER NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  last_error      TEXT,
  PRIMARY KEY (sink, event_id)
);

-- Who delivers a sink's events, or runs the retention job, for now: one instance at a time,
-- so events reach a sink in order and the job runs once however many instances share the database.
CREATE TABLE audit_leases (
  name       VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
  holder     VARCHAR(255) COLLATE "C" NOT NULL,
  expires_at BIGINT NOT NULL
);

-- The audit trail: one row per change, written in the change's own transaction (so there is
-- never a change without its event, nor an event without its change). Ids are UUIDv7, so the
-- primary key's order is the order of time; objects are stored as JSON, before and after.
CREATE TABLE audit_events (
  id            TEXT NOT NULL PRIMARY KEY,
  namespace_key TEXT NOT NULL,
  type          VARCHAR(32) NOT NULL,
  action        VARCHAR(32) NOT NULL,
  resource_key  TEXT NOT NULL,
  object_id     TEXT,
  actor         TEXT NOT NULL,
  actor_id      TEXT NOT NULL,
  actor_name    TEXT NOT NULL,
  source        VARCHAR(16) NOT NULL,
  request_id    TEXT,
  payload       TEXT,
  previous      TEXT,
  created_at    INTEGER NOT NULL
);
CREATE INDEX audit_events_namespace ON audit_events (namespace_key, id);
CREATE INDEX audit_events_resource ON audit_events (namespace_key, resource_key, id);
CREATE INDEX audit_events_created ON audit_events (created_at);

-- The outbox: an event waits here for each sink configured when it was written, until that sink
-- has acknowledged it (the row is deleted). Delivery resumes from here after any restart.
CREATE TABLE audit_outbox (
  sink            TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  attempts        INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  last_error      TEXT,
  PRIMARY KEY (sink, event_id)
);

-- Who delivers a sink's events, or runs the retention job, for now: one instance at a time,
-- so events reach a sink in order and the job runs once however many instances share the database.
CREATE TABLE audit_leases (
  name       TEXT NOT NULL PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);

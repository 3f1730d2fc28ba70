-- What each committed write touched (its namespace's revisions before and after, the flags and
-- segments, or the whole namespace), written in the write's own transaction: another process's
-- snapshot cache, finding a namespace's revision moved, reads the chain of changes from the
-- revision it holds and reloads only those flags, where it used to rebuild the whole namespace
-- (17 s at 100,000 flags). The last 1,000 changes of each namespace are kept; a cache further
-- behind rebuilds.
CREATE TABLE change_log (
  namespace_key        TEXT NOT NULL,
  namespace_created_at INTEGER NOT NULL,
  revision_from        INTEGER NOT NULL,
  revision_to          INTEGER NOT NULL,
  flags                TEXT NOT NULL,
  segments             TEXT NOT NULL,
  whole                SMALLINT NOT NULL,
  PRIMARY KEY (namespace_key, namespace_created_at, revision_to)
);

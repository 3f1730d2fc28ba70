-- Lists (and a large namespace's read) are ordered by creation time, then key: an index in that
-- whole order lets a page be read from it, where the index on creation time alone left the
-- database to sort every flag (or segment) of the namespace for each page — at 100,000 flags,
-- tens of milliseconds a page.
CREATE INDEX flags_created_key ON flags (namespace_key, created_at, key);
DROP INDEX flags_created;
CREATE INDEX segments_created_key ON segments (namespace_key, created_at, key);
DROP INDEX segments_created;

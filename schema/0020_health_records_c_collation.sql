-- The stored health items' identities compare byte by byte (issue 12). Their keys, uuids, kinds
-- and names are identifiers, not words. Under the database's linguistic collation every
-- comparison in their indexes went through strcoll, about 6 % of PostgreSQL's time while
-- importing a million records. Equality means the same under either collation, so every lookup
-- finds what it found before; the one order that changes is the last tie-break of
-- `GET /health/latest` (two readings of a metric ending and starting at the same second), now by
-- the key's bytes. The three indexes are rebuilt, the table is not rewritten; the rebuild holds
-- the table for as long as it takes (seconds per million items) when the migration runs.
ALTER TABLE rm_health_records
  ALTER COLUMN key  TYPE text COLLATE "C",
  ALTER COLUMN uuid TYPE text COLLATE "C",
  ALTER COLUMN kind TYPE text COLLATE "C",
  ALTER COLUMN name TYPE text COLLATE "C";

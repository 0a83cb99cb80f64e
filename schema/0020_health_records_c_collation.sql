-- The stored health items' identities compare byte by byte (issue 12). Their keys, uuids, kinds
-- and names are identifiers, not words: no reader sorts them for a person. Under the database's
-- linguistic collation every comparison in their indexes went through strcoll, about 6 % of
-- PostgreSQL's time while importing a million records. Equality means the same under either
-- collation, so every lookup finds what it found before; the three indexes are rebuilt, the
-- table is not rewritten.
ALTER TABLE rm_health_records
  ALTER COLUMN key  TYPE text COLLATE "C",
  ALTER COLUMN uuid TYPE text COLLATE "C",
  ALTER COLUMN kind TYPE text COLLATE "C",
  ALTER COLUMN name TYPE text COLLATE "C";

-- What the store sends for one writer's batch (`lifelog-bench concurrent`), sent by pgbench
-- (libpq, -M prepared, as the store prepares it): one call of lifelog_append_sealed_fresh with
-- :batch events of about the size of a sealed bench event, each client to its own stream. Its
-- ratio to append.sql is the append function's own cost under concurrent writers; the store
-- API's ratio to this is its client's. The owner (synthetic) has a key row made by Floor.prepare.
SELECT * FROM lifelog_append_sealed_fresh('pgbench-' || :run || '-' || :client_id, '00000000-0000-4000-8000-0000000b0b0b', 'bench', NULL,
  ARRAY(SELECT gen_random_uuid() FROM generate_series(1, :batch::int)), array_fill('bench.happened'::text, ARRAY[:batch::int]),
  array_fill(1::smallint, ARRAY[:batch::int]),
  array_fill('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f5051525354555657'::bytea, ARRAY[:batch::int]));

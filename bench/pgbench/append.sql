-- The floor for lifelog's appends: what PostgreSQL itself does with the same rows in one INSERT
-- per transaction, into a copy of `events` (same columns, defaults, constraints and indexes, no
-- triggers). Each client writes its own stream, versions counting up, like a lifelog writer.
-- Variables (pgbench -D): v = 0 (counts this client's transactions), run (unique per run), batch.
\set v :v + 1
INSERT INTO pgbench_events (event_id, owner_id, stream_id, stream_version, event_type, data, metadata)
SELECT gen_random_uuid(), md5('owner-' || :run || '-' || :client_id)::uuid, 'bench-' || md5(:run || '-' || :client_id)::uuid,
       (:v - 1) * :batch + g, 'bench.happened', ('{"n":' || (g - 1) || ',"note":"synthetic"}')::jsonb, '{"actor":"bench"}'::jsonb
FROM generate_series(1, :batch) AS g;

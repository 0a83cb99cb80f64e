-- Appends do less work per call, so writers of different streams spend less time in the database
-- (issue 10). Before, each append upserted its `streams` row (a speculative insertion check even
-- when the stream existed), locked it with SELECT ... FOR UPDATE (a WAL record of its own) and
-- updated it at the end. Now one UPDATE ... RETURNING locks the row, reads the version and moves
-- it; a new stream is inserted first. The idempotent replay is checked before the row is touched,
-- still under the per-stream advisory lock. Same signature, so the grant of 0001 still applies.
CREATE OR REPLACE FUNCTION lifelog_append(
  p_stream_id text, p_owner_id uuid, p_stream_type text, p_expected bigint,
  p_event_ids uuid[], p_types text[], p_schema_versions smallint[], p_data jsonb[], p_metadata jsonb[])
RETURNS TABLE (out_global_position bigint, out_stream_version bigint, out_transaction_id text,
               out_recorded_at timestamptz, out_replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_current bigint;
  v_owner uuid;
  v_found int;
  v_same_stream int;
  v_count int := cardinality(p_event_ids);
BEGIN
  -- Shared side of the append gate: a projection cutover takes it exclusively.
  PERFORM pg_advisory_xact_lock_shared(1280068684, 1);
  -- Writers of one stream queue here before their transaction has an id, so transaction ids
  -- (and so the gap-safe read order) follow each stream's version order.
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'an append must be the first write of its transaction' USING ERRCODE = 'LL005';
  END IF;

  -- Under the stream lock a retry of the same batch sees the first attempt's rows.
  SELECT count(*), count(*) FILTER (WHERE e.stream_id = p_stream_id)
    INTO v_found, v_same_stream
    FROM events e WHERE e.event_id = ANY (p_event_ids);
  IF v_found > 0 THEN
    IF v_found = v_count AND v_same_stream = v_count THEN
      IF EXISTS (SELECT 1 FROM streams s WHERE s.stream_id = p_stream_id AND s.owner_id <> p_owner_id) THEN
        RAISE EXCEPTION 'stream % belongs to another owner', p_stream_id USING ERRCODE = 'LL003';
      END IF;
      RETURN QUERY
        SELECT e.global_position, e.stream_version, e.transaction_id::text, e.recorded_at, true
        FROM events e WHERE e.event_id = ANY (p_event_ids) ORDER BY e.global_position;
      RETURN;
    END IF;
    RAISE EXCEPTION 'event ids of this batch are already stored elsewhere' USING ERRCODE = 'LL002';
  END IF;

  -- One statement locks the stream row, reads its version and moves it past this batch. Any
  -- check below that fails raises, which undoes the update with the rest of the statement.
  UPDATE streams s SET version = s.version + v_count WHERE s.stream_id = p_stream_id
    RETURNING s.version - v_count, s.owner_id INTO v_current, v_owner;
  IF NOT FOUND THEN
    INSERT INTO streams (stream_id, owner_id, stream_type, version)
      VALUES (p_stream_id, p_owner_id, p_stream_type, 0)
      ON CONFLICT (stream_id) DO NOTHING;
    UPDATE streams s SET version = s.version + v_count WHERE s.stream_id = p_stream_id
      RETURNING s.version - v_count, s.owner_id INTO v_current, v_owner;
  END IF;
  IF v_owner <> p_owner_id THEN
    RAISE EXCEPTION 'stream % belongs to another owner', p_stream_id USING ERRCODE = 'LL003';
  END IF;

  IF p_expected IS NOT NULL AND p_expected <> v_current THEN
    RAISE EXCEPTION 'wrong expected version for %', p_stream_id
      USING ERRCODE = 'LL001', DETAIL = v_current::text;
  END IF;

  RETURN QUERY
    WITH inserted AS (
      INSERT INTO events (event_id, owner_id, stream_id, stream_version, event_type, schema_version, data, metadata)
      SELECT u.event_id, p_owner_id, p_stream_id, v_current + u.n, u.event_type, u.schema_version, u.data, u.metadata
      FROM unnest(p_event_ids, p_types, p_schema_versions, p_data, p_metadata)
           WITH ORDINALITY AS u(event_id, event_type, schema_version, data, metadata, n)
      ORDER BY u.n
      RETURNING events.global_position, events.stream_version, events.transaction_id, events.recorded_at)
    SELECT i.global_position, i.stream_version, i.transaction_id::text, i.recorded_at, false
    FROM inserted i ORDER BY i.stream_version;

END $$;

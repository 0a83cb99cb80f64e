-- The append-only event log (DESIGN §2) and the bookkeeping every projector shares.

-- The role the server runs as. Roles are cluster-wide, so another database may have made it already.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lifelog_app') THEN
    CREATE ROLE lifelog_app NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;

CREATE TABLE events (
  global_position bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
  event_id        uuid        NOT NULL UNIQUE,
  owner_id        uuid        NOT NULL,
  stream_id       text        NOT NULL,
  stream_version  bigint      NOT NULL CHECK (stream_version > 0),
  event_type      text        NOT NULL,
  schema_version  smallint    NOT NULL DEFAULT 1 CHECK (schema_version > 0),
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream_id, stream_version)
);
-- Gap-safe readers walk the log in (transaction_id, global_position) order.
CREATE INDEX events_transaction_position_idx ON events (transaction_id, global_position);
CREATE INDEX events_owner_position_idx ON events (owner_id, global_position);

CREATE TABLE streams (
  stream_id   text   PRIMARY KEY,
  owner_id    uuid   NOT NULL,
  stream_type text   NOT NULL,
  version     bigint NOT NULL CHECK (version >= 0)
);
CREATE INDEX streams_owner_idx ON streams (owner_id, stream_id);

-- Append-only, the first of two guards (the second is the server role's privileges).
CREATE FUNCTION events_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events is append-only: % is not allowed', TG_OP USING ERRCODE = 'LL004';
END $$;
CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_reject_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_reject_change();

-- Wakes async projectors; the payload is empty because notifications are only a hint to read.
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('lifelog_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify_insert AFTER INSERT ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_notify();

-- Append with optimistic concurrency in one round trip.
-- p_expected: NULL = any version, 0 = the stream must not exist, n = the stream must be at n.
-- Raises LL001 (wrong expected version, DETAIL = actual version), LL002 (an event id is already
-- stored in a way this batch does not replay), LL003 (the stream belongs to another owner),
-- LL005 (the transaction wrote before appending, which would break the read order).
CREATE FUNCTION lifelog_append(
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

  INSERT INTO streams (stream_id, owner_id, stream_type, version)
    VALUES (p_stream_id, p_owner_id, p_stream_type, 0)
    ON CONFLICT (stream_id) DO NOTHING;
  SELECT s.version, s.owner_id INTO v_current, v_owner
    FROM streams s WHERE s.stream_id = p_stream_id FOR UPDATE;
  IF v_owner <> p_owner_id THEN
    RAISE EXCEPTION 'stream % belongs to another owner', p_stream_id USING ERRCODE = 'LL003';
  END IF;

  -- Under the stream lock a retry of the same batch sees the first attempt's rows.
  SELECT count(*), count(*) FILTER (WHERE e.stream_id = p_stream_id)
    INTO v_found, v_same_stream
    FROM events e WHERE e.event_id = ANY (p_event_ids);
  IF v_found > 0 THEN
    IF v_found = v_count AND v_same_stream = v_count THEN
      RETURN QUERY
        SELECT e.global_position, e.stream_version, e.transaction_id::text, e.recorded_at, true
        FROM events e WHERE e.event_id = ANY (p_event_ids) ORDER BY e.global_position;
      RETURN;
    END IF;
    RAISE EXCEPTION 'event ids of this batch are already stored elsewhere' USING ERRCODE = 'LL002';
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

  UPDATE streams SET version = v_current + v_count WHERE stream_id = p_stream_id;
END $$;

-- Where each async projector has read up to; written in the same transaction as its read model.
CREATE TABLE projection_checkpoints (
  projector       text        PRIMARY KEY,
  transaction_id  xid8        NOT NULL,
  global_position bigint      NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Second guard: the server's role may read and add events, never change them.
GRANT SELECT, INSERT ON events TO lifelog_app;
GRANT SELECT, INSERT, UPDATE ON streams TO lifelog_app;
GRANT SELECT, INSERT, UPDATE ON projection_checkpoints TO lifelog_app;
-- The ledger the migration runner keeps, so /readyz can compare it with schema/.
GRANT SELECT ON schema_migrations TO lifelog_app;
GRANT EXECUTE ON FUNCTION lifelog_append(text, uuid, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]) TO lifelog_app;
-- Read models created later (by migrations or a projection rebuild) are the server's to write.
ALTER DEFAULT PRIVILEGES GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO lifelog_app;
ALTER DEFAULT PRIVILEGES GRANT USAGE, SELECT ON SEQUENCES TO lifelog_app;

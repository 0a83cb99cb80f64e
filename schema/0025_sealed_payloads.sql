-- Crypto-shredding (issue 29): every event's payload and metadata are stored sealed (AES-GCM)
-- under a data key of their owner's own, and erasing an account deletes that key. The log stays
-- append-only: nothing of it is changed or removed, what it holds for that owner just can no
-- longer be read.

-- One data key per owner, wrapped (AES-GCM) by a server key the database never holds; the
-- server's configuration has it. `wrapped_by` names which server key, so a rotation can rewrap.
CREATE TABLE owner_keys (
  owner_id   uuid        PRIMARY KEY,
  wrapped    bytea       NOT NULL,
  wrapped_by text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX owner_keys_wrapped_by_idx ON owner_keys (wrapped_by);

-- Owners whose keys were deleted: no new key is ever made for them, and a rebuild or a late
-- write that still carried their rows is swept. An owner id is a random UUID: nothing personal.
CREATE TABLE erased_owners (
  owner_id  uuid        PRIMARY KEY,
  erased_at timestamptz NOT NULL DEFAULT now()
);

-- An erasure deletes a user's rows from a rebuild's new tables too (one running, or left by an
-- interrupted one): the server's role needs the schema (the rebuild grants it from now on).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'lifelog_rebuild') THEN
    GRANT USAGE ON SCHEMA lifelog_rebuild TO lifelog_app;
  END IF;
END $$;

-- An erasure deletes by these columns; they were not indexed.
CREATE INDEX ON refresh_tokens (user_id);
CREATE INDEX ON pairing_codes (user_id);
CREATE INDEX ON device_keys (user_id);
CREATE INDEX ON projection_dead_letters (owner_id);

-- `sealed` holds what `data` and `metadata` held; those stay for events stored before this
-- migration until the server seals them (at start, `lifelog migrate`), then they are NULL.
ALTER TABLE events ADD COLUMN sealed bytea;
ALTER TABLE events ALTER COLUMN data DROP NOT NULL, ALTER COLUMN metadata DROP NOT NULL;
-- Ciphertext does not compress: do not try (the payload is compressed before it is sealed).
ALTER TABLE events ALTER COLUMN sealed SET STORAGE EXTERNAL;
ALTER TABLE events ADD CONSTRAINT events_sealed_or_plain
  CHECK ((sealed IS NOT NULL AND data IS NULL AND metadata IS NULL) OR (sealed IS NULL AND data IS NOT NULL AND metadata IS NOT NULL)) NOT VALID;

-- The append of a sealed batch. As lifelog_append_fresh (0018), and it holds the owner's lock
-- shared until the commit (an advisory lock: no row is written for it, no MultiXact when one
-- owner's appends run side by side): an erasure takes it exclusively, so it waits for the
-- appends in flight, and an append after an erasure finds no key and fails (LL006) instead of
-- writing rows into read models that were just purged. The key's (namespace + 4, hashtext(owner)).
CREATE FUNCTION lifelog_append_sealed_fresh(
  p_stream_id text, p_owner_id uuid, p_stream_type text, p_expected bigint,
  p_event_ids uuid[], p_types text[], p_schema_versions smallint[], p_sealed bytea[])
RETURNS TABLE (out_global_position bigint, out_stream_version bigint, out_transaction_id text,
               out_recorded_at timestamptz, out_replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_current bigint;
  v_owner uuid;
  v_count int := cardinality(p_event_ids);
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1280068684, 1);
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'an append must be the first write of its transaction' USING ERRCODE = 'LL005';
  END IF;
  PERFORM pg_advisory_xact_lock_shared(1280068688, hashtext(p_owner_id::text));
  -- A later statement, a later snapshot: an erasure that committed while this waited is seen
  -- here even if a key was made again for the owner meanwhile (a first write racing it).
  IF NOT EXISTS (SELECT 1 FROM owner_keys k WHERE k.owner_id = p_owner_id)
     OR EXISTS (SELECT 1 FROM erased_owners e WHERE e.owner_id = p_owner_id) THEN
    RAISE EXCEPTION 'owner % has no data key (erased)', p_owner_id USING ERRCODE = 'LL006';
  END IF;

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
      INSERT INTO events (event_id, owner_id, stream_id, stream_version, event_type, schema_version, sealed)
      SELECT u.event_id, p_owner_id, p_stream_id, v_current + u.n, u.event_type, u.schema_version, u.sealed
      FROM unnest(p_event_ids, p_types, p_schema_versions, p_sealed)
           WITH ORDINALITY AS u(event_id, event_type, schema_version, sealed, n)
      ORDER BY u.n
      RETURNING events.global_position, events.stream_version, events.transaction_id, events.recorded_at)
    SELECT i.global_position, i.stream_version, i.transaction_id::text, i.recorded_at, false
    FROM inserted i ORDER BY i.stream_version;
END $$;

-- The replay check in front of it, as lifelog_append (0018).
CREATE FUNCTION lifelog_append_sealed(
  p_stream_id text, p_owner_id uuid, p_stream_type text, p_expected bigint,
  p_event_ids uuid[], p_types text[], p_schema_versions smallint[], p_sealed bytea[])
RETURNS TABLE (out_global_position bigint, out_stream_version bigint, out_transaction_id text,
               out_recorded_at timestamptz, out_replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_found int;
  v_same_stream int;
  v_count int := cardinality(p_event_ids);
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1280068684, 1);
  PERFORM pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'an append must be the first write of its transaction' USING ERRCODE = 'LL005';
  END IF;

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

  RETURN QUERY SELECT * FROM lifelog_append_sealed_fresh(p_stream_id, p_owner_id, p_stream_type, p_expected,
                                                         p_event_ids, p_types, p_schema_versions, p_sealed);
END $$;

-- Plain payloads can no longer be appended: the functions that took them are gone.
DROP FUNCTION lifelog_append(text, uuid, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]);
DROP FUNCTION lifelog_append_fresh(text, uuid, text, bigint, uuid[], text[], smallint[], jsonb[], jsonb[]);

GRANT EXECUTE ON FUNCTION lifelog_append_sealed_fresh(text, uuid, text, bigint, uuid[], text[], smallint[], bytea[]) TO lifelog_app;
GRANT EXECUTE ON FUNCTION lifelog_append_sealed(text, uuid, text, bigint, uuid[], text[], smallint[], bytea[]) TO lifelog_app;
-- Keys are made at an owner's first write, rewrapped at a rotation, deleted at an erasure (the
-- default privileges of 0001 already grant that); a tombstone is never taken back.
REVOKE UPDATE, DELETE ON erased_owners FROM lifelog_app;

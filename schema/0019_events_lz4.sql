-- Event payloads are compressed with lz4 where the server has it (issue 12). A health batch's
-- event holds 500 records, ~140 KB of JSON: pglz, the default, spent about a second of every
-- million imported records compressing them on append, and the inline projector decompresses
-- each one again to read its records. lz4 does both several times faster, for ~10 % more bytes.
-- It applies to values written from now on; stored ones stay as they are (both read the same).
-- A server built without lz4 keeps pglz.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
    ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
  END IF;
END
$$;

-- A replayed answer carries the ETag (and Location) the first one had, so a client that
-- retried a create can go on with If-Match as if it had seen the original.
ALTER TABLE idempotency_keys ADD COLUMN etag text, ADD COLUMN location text;

-- A replayed answer that holds a secret (a device key, a pairing code) is replayed whole: the
-- full answer is kept sealed (AES-GCM) under a key derived from the server's key and the
-- client's Idempotency-Key, which is itself kept only as a keyed hash from now on. `body` keeps
-- the answer without its secrets; `sealed_body` is cleared after the replay window (24 hours).
ALTER TABLE idempotency_keys ADD COLUMN sealed_body bytea;

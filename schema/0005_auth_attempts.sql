-- Attempts are recorded before the password is checked (so parallel guesses cannot all pass the
-- throttle) and removed again when they succeed; the id says which row to remove.
ALTER TABLE auth_failures ADD COLUMN attempt_id uuid;
CREATE INDEX ON auth_failures (attempt_id);

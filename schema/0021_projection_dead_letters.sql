-- Events a projector could not apply (issue 24). One bad event used to stop its projector for
-- every user: the batch failed, was retried every few seconds, and failed again forever. Now the
-- event is recorded here with the error, skipped, and the projector moves on; `lifelog
-- projections status` and `/metrics` show the count, and `lifelog projections retry NAME` or a
-- rebuild applies it again. The event itself stays in the log, untouched.
CREATE TABLE projection_dead_letters (
  projector       text        NOT NULL,
  global_position bigint      NOT NULL,
  transaction_id  xid8        NOT NULL,
  event_id        uuid        NOT NULL,
  owner_id        uuid        NOT NULL,
  event_type      text        NOT NULL,
  error           text        NOT NULL,
  attempts        integer     NOT NULL DEFAULT 1,
  first_failed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_failed_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (projector, global_position));

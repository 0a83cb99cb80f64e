-- Two small read models that exercise the projection machinery end to end.
-- Constraints and indexes are left unnamed on purpose: a rebuild copies tables with
-- CREATE TABLE ... (LIKE ... INCLUDING ALL), which names them the same way PostgreSQL does here.

-- Inline: one row per stream, updated in the append's own transaction.
CREATE TABLE rm_stream_summary (
  stream_id            text        PRIMARY KEY,
  owner_id             uuid        NOT NULL,
  stream_type          text        NOT NULL,
  event_count          bigint      NOT NULL,
  last_stream_version  bigint      NOT NULL,
  last_event_type      text        NOT NULL,
  last_global_position bigint      NOT NULL,
  last_recorded_at     timestamptz NOT NULL
);
CREATE INDEX ON rm_stream_summary (owner_id, stream_type);

-- Async: per owner and event type, how many events and when, for activity views.
CREATE TABLE rm_owner_activity (
  owner_id          uuid        NOT NULL,
  event_type        text        NOT NULL,
  event_count       bigint      NOT NULL,
  first_recorded_at timestamptz NOT NULL,
  last_recorded_at  timestamptz NOT NULL,
  PRIMARY KEY (owner_id, event_type)
);

-- Reminders and webhooks (issue 14).
--
-- The zones each user has lived in, from when each was set (inline, accounts projector): a
-- reminder uses the zone in force at its due moment, so a traveller's 07:30 follows them.
CREATE TABLE rm_user_zones (
  user_id  uuid        NOT NULL,
  since    timestamptz NOT NULL,
  timezone text        NOT NULL,
  PRIMARY KEY (user_id, since)
);
INSERT INTO rm_user_zones (user_id, since, timezone) SELECT user_id, created_at, timezone FROM rm_users;

-- Where a user's pushes go: the reminders' webhook (one per user) and event webhooks. Not in
-- the log, like refresh tokens: a signing secret must not live forever in an append-only log.
-- The previous secret stays valid (and signs beside the new one) for a day after a rotation.
CREATE TABLE webhook_endpoints (
  id              uuid        PRIMARY KEY,
  user_id         uuid        NOT NULL,
  purpose         text        NOT NULL CHECK (purpose IN ('reminders', 'events')),
  url             text        NOT NULL,
  events          text[]      NOT NULL DEFAULT '{}',
  secret          text        NOT NULL,
  previous_secret text,
  previous_until  timestamptz,
  failing_since   timestamptz,
  disabled_at     timestamptz,
  disabled_reason text,
  created_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX webhook_endpoints_one_reminders ON webhook_endpoints (user_id) WHERE purpose = 'reminders';
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at);

-- The outbox: one row per reminder key (user, kind, subject, local due time), so a second
-- run, a crash and a rerun, or two jobs at once never make a second copy. A row with an
-- endpoint is pushed (workers share rows with FOR UPDATE SKIP LOCKED and a lease); every
-- reminder row can also be pulled and acknowledged.
CREATE TABLE reminder_outbox (
  id              uuid        PRIMARY KEY,
  user_id         uuid        NOT NULL,
  key             text        NOT NULL UNIQUE,
  channel         text        NOT NULL CHECK (channel IN ('reminder', 'event')),
  kind            text        NOT NULL,
  subject         text        NOT NULL,
  due_at          timestamptz NOT NULL,
  due_local       text        NOT NULL,
  title           text        NOT NULL,
  body            text        NOT NULL,
  data            jsonb       NOT NULL,
  status          text        NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
  endpoint_id     uuid,
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  lease_until     timestamptz,
  claim_id        uuid,        -- the worker's claim: only it may record the outcome
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL,
  delivered_at    timestamptz
);
CREATE INDEX reminder_outbox_due ON reminder_outbox (next_attempt_at) WHERE status = 'pending' AND endpoint_id IS NOT NULL;
CREATE INDEX reminder_outbox_user ON reminder_outbox (user_id, due_at DESC, id);

-- Where the planner stopped: the next run plans (planned_until, now].
CREATE TABLE reminder_planner (
  singleton     boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  planned_until timestamptz NOT NULL
);

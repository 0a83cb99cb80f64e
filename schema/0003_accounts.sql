-- Accounts: the read model projected inline from user streams, and the security state that is
-- deliberately kept out of the log (password hashes, token hashes, throttling, idempotency).

-- Inline read model (rebuildable). Unnamed constraints and indexes: see 0002.
CREATE TABLE rm_users (
  user_id        uuid        PRIMARY KEY,
  email          text        NOT NULL UNIQUE,   -- stored lower-cased
  name           text        NOT NULL,
  timezone       text        NOT NULL,
  day_start_hour smallint    NOT NULL,
  week_start     smallint    NOT NULL,
  currency       text        NOT NULL,
  language       text        NOT NULL,
  morning_time   text        NOT NULL,
  evening_time   text        NOT NULL,
  reminder_kinds text[]      NOT NULL,
  version        bigint      NOT NULL,          -- the user stream's version: the ETag
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

CREATE TABLE rm_devices (
  device_id  uuid        PRIMARY KEY,
  user_id    uuid        NOT NULL,
  name       text        NOT NULL,
  kind       text        NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX ON rm_devices (user_id, created_at, device_id);

-- Security state: never in the log, never rebuilt, only hashes of secrets.
CREATE TABLE credentials (
  user_id       uuid        PRIMARY KEY,
  password_hash text        NOT NULL,
  updated_at    timestamptz NOT NULL
);

-- A refresh-token family is one login (a session); every rotation stays in the family.
CREATE TABLE sessions (
  session_id uuid        PRIMARY KEY,
  user_id    uuid        NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text
);
CREATE INDEX ON sessions (user_id);

CREATE TABLE refresh_tokens (
  token_hash bytea       PRIMARY KEY,          -- SHA-256 of the opaque token
  session_id uuid        NOT NULL REFERENCES sessions (session_id),
  user_id    uuid        NOT NULL,
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  spent_at   timestamptz
);
CREATE INDEX ON refresh_tokens (session_id);

CREATE TABLE device_keys (
  device_id    uuid        PRIMARY KEY,
  user_id      uuid        NOT NULL,
  key_hash     bytea       NOT NULL UNIQUE,    -- SHA-256 of the key
  created_at   timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at   timestamptz
);

CREATE TABLE pairing_codes (
  code_hash  bytea       PRIMARY KEY,
  user_id    uuid        NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);

-- Failed logins and pairing attempts, counted per key ("account:<email>", "address:<ip>").
CREATE TABLE auth_failures (
  key          text        NOT NULL,
  attempted_at timestamptz NOT NULL
);
CREATE INDEX ON auth_failures (key, attempted_at);

-- Idempotency-Key replays: the first response per (user, key), with a hash of its request.
CREATE TABLE idempotency_keys (
  user_id      uuid        NOT NULL,
  key          text        NOT NULL,
  request_hash bytea       NOT NULL,
  status       smallint,                       -- NULL while the first request is in flight
  content_type text,
  body         bytea,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (user_id, key)
);
CREATE INDEX ON idempotency_keys (created_at);

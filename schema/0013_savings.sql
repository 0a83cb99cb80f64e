-- Savings: inline read models of the facts of each goal's stream (savings-goal-<uuid>, owned by
-- the goal's owner). Balances, allocation, statuses and overdues are derived at query time from
-- the plans and movements. Amounts are bigint minor units of the goal's currency.
CREATE TABLE rm_savings_goals (
  goal_id       uuid        PRIMARY KEY,
  owner_id      uuid        NOT NULL,
  name          text        NOT NULL,
  emoji         text,
  currency      char(3)     NOT NULL,
  target_amount bigint,
  target_date   date,
  version       bigint      NOT NULL,            -- the goal stream's version: the ETag, and what commands append at
  created_at    timestamptz NOT NULL
);
CREATE INDEX rm_savings_goals_owner_idx ON rm_savings_goals (owner_id, created_at, goal_id);

-- Plan changes in the order they were made: a version ('set') or an end ('ended').
CREATE TABLE rm_savings_plans (
  owner_id     uuid     NOT NULL,
  goal_id      uuid     NOT NULL,
  seq          bigint   NOT NULL,                -- the stream version of the change
  kind         text     NOT NULL CHECK (kind IN ('set', 'ended')),
  amount       bigint,
  anchor_day   text,                             -- '1'..'31' or 'last'
  every_months smallint,
  start_month  date,                             -- first day of the month
  end_month    date,
  ended_after  date,
  PRIMARY KEY (owner_id, goal_id, seq)
);

-- Who shares a goal besides its owner. Member access goes through here, keyed by the member.
CREATE TABLE rm_savings_members (
  owner_id uuid        NOT NULL,
  goal_id  uuid        NOT NULL,
  user_id  uuid        NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (owner_id, goal_id, user_id)
);
CREATE UNIQUE INDEX rm_savings_members_user_idx ON rm_savings_members (user_id, goal_id);

-- Deposits and withdrawals, of the owner and of members (actor_id).
CREATE TABLE rm_savings_movements (
  movement_id uuid        PRIMARY KEY,
  owner_id    uuid        NOT NULL,
  goal_id     uuid        NOT NULL,
  seq         bigint      NOT NULL,             -- entry order: the stream version of the event that added it
  kind        text        NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
  amount      bigint      NOT NULL CHECK (amount > 0),
  currency    char(3)     NOT NULL,
  date        date        NOT NULL,
  occurrence  date,
  note        text,
  actor_id    uuid        NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX rm_savings_movements_goal_idx ON rm_savings_movements (owner_id, goal_id, seq);

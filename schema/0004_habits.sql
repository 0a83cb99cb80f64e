-- Habits: inline read models of facts (definitions, logs per local date, freezes). States such as
-- "due today" and streaks are computed at query time from these and the user's logical today.
CREATE TABLE rm_habits (
  habit_id      uuid        PRIMARY KEY,
  owner_id      uuid        NOT NULL,
  name          text        NOT NULL,
  emoji         text,
  color         text,
  kind          text        NOT NULL,
  target        numeric,
  unit          text,
  schedules     jsonb       NOT NULL,   -- [{"from": "YYYY-MM-DD", "schedule": {...}}], oldest first
  start_date    date        NOT NULL,
  reminder_time text,
  archived      boolean     NOT NULL,
  version       bigint      NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX ON rm_habits (owner_id, archived, created_at);

-- The day's total per habit and local date (boolean logs count 1).
CREATE TABLE rm_habit_logs (
  habit_id uuid    NOT NULL,
  owner_id uuid    NOT NULL,
  date     date    NOT NULL,
  value    numeric NOT NULL,
  PRIMARY KEY (habit_id, date)
);
CREATE INDEX ON rm_habit_logs (owner_id, habit_id, date);

CREATE TABLE rm_habit_freezes (
  freeze_id uuid PRIMARY KEY,
  habit_id  uuid NOT NULL,
  owner_id  uuid NOT NULL,
  from_date date NOT NULL,
  to_date   date NOT NULL,
  reason    text
);
CREATE INDEX ON rm_habit_freezes (owner_id, habit_id);

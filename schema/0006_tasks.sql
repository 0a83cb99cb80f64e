-- Tasks: an inline read model of facts; "overdue" and "due today" are computed at query time.
CREATE TABLE rm_tasks (
  task_id      uuid        PRIMARY KEY,
  owner_id     uuid        NOT NULL,
  series_id    uuid        NOT NULL,
  title        text        NOT NULL,
  notes        text,
  priority     smallint    NOT NULL,
  due_date     date,
  due_time     text,
  repeat       jsonb,
  anchor_date  date,
  occurrence   integer     NOT NULL,
  completed    boolean     NOT NULL,
  completed_at timestamptz,
  next_task_id uuid,
  revision     integer     NOT NULL,            -- events applied to this task: its ETag; 1 = untouched
  created_at   timestamptz NOT NULL,
  -- The list order: due date (none last), then priority (high first), then age.
  sort_due     date        GENERATED ALWAYS AS (COALESCE(due_date, DATE '9999-12-31')) STORED
);
CREATE INDEX ON rm_tasks (owner_id, completed, sort_due, priority DESC, created_at, task_id);

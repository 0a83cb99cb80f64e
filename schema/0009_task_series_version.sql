-- A task series' stream version lives in its read model, so a command reads the state it decides
-- on and the version it appends at from one place, without reading the event store's tables.
CREATE TABLE rm_task_series (
  owner_id  uuid   NOT NULL,
  series_id uuid   NOT NULL,
  version   bigint NOT NULL,
  PRIMARY KEY (owner_id, series_id)
);
INSERT INTO rm_task_series (owner_id, series_id, version)
  SELECT owner_id, substring(stream_id FROM 6)::uuid, version FROM streams WHERE stream_type = 'task';

-- One version type everywhere: a task's version (its ETag) is a bigint like every other.
ALTER TABLE rm_tasks ALTER COLUMN revision TYPE bigint;

-- Queries lead with owner_id (DESIGN §7).
CREATE INDEX rm_tasks_owner_series_idx ON rm_tasks (owner_id, series_id);

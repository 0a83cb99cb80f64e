-- Health. Samples, sleep segments and workouts of each user's health stream (health-<uuid>) are
-- kept inline, one row per item identity, so ingestion can tell a duplicate from a new item in
-- the same transaction that stores it. Day figures and nights are async read models computed
-- from these rows (one batch can touch many days).
CREATE TABLE rm_health_records (
  owner_id      uuid             NOT NULL,
  key           text             NOT NULL,        -- kind|name|start|end-or-'total'|source name (HealthRecord.key)
  uuid          text,                             -- the client's id, lowercased
  kind          text             NOT NULL CHECK (kind IN ('quantity', 'sleep', 'workout')),
  name          text             NOT NULL,        -- metric, sleep stage or workout type
  value         double precision,
  start_s       bigint           NOT NULL,        -- seconds since 1970
  end_s         bigint           NOT NULL,
  local_date    date             NOT NULL,        -- the date it counts for (a night's date for sleep)
  source_name   text             NOT NULL,
  source_kind   text             NOT NULL,
  source_bundle text,
  series        text             NOT NULL CHECK (series IN ('sample', 'summary')),
  energy_kcal   double precision,                 -- workouts
  distance_m    double precision,
  avg_hr        double precision,
  device_id     uuid,                             -- the device key that sent it
  PRIMARY KEY (owner_id, key)
);
CREATE UNIQUE INDEX rm_health_records_uuid_idx ON rm_health_records (owner_id, uuid) WHERE uuid IS NOT NULL;
CREATE INDEX rm_health_records_day_idx ON rm_health_records (owner_id, kind, name, local_date);

-- The user's settings stream (health-settings-<uuid>): manual day values and source priority.
CREATE TABLE rm_health_manual (
  owner_id uuid             NOT NULL,
  metric   text             NOT NULL,
  date     date             NOT NULL,
  value    double precision NOT NULL,
  PRIMARY KEY (owner_id, metric, date)
);

CREATE TABLE rm_health_settings (
  owner_id uuid   PRIMARY KEY,
  priority text[] NOT NULL
);

-- Async: one row per local date and metric (GET /health/daily).
CREATE TABLE rm_health_daily (
  owner_id   uuid             NOT NULL,
  metric     text             NOT NULL,
  date       date             NOT NULL,
  value      double precision NOT NULL,
  min        double precision,
  max        double precision,
  source     text,
  samples    integer          NOT NULL,
  decided_by text             NOT NULL CHECK (decided_by IN ('samples', 'manual', 'summary')),
  PRIMARY KEY (owner_id, date, metric)
);

-- Async: one night per date it ends on (GET /health/sleep).
CREATE TABLE rm_health_sleep (
  owner_id       uuid    NOT NULL,
  date           date    NOT NULL,
  asleep_minutes integer NOT NULL,
  in_bed_minutes integer NOT NULL,
  awake_minutes  integer NOT NULL,
  core_minutes   integer NOT NULL,
  deep_minutes   integer NOT NULL,
  rem_minutes    integer NOT NULL,
  start_s        bigint  NOT NULL,
  end_s          bigint  NOT NULL,
  source         text    NOT NULL,
  segments       jsonb   NOT NULL,
  PRIMARY KEY (owner_id, date)
);

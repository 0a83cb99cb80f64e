-- Health out (issue 13). A user's morning check-ins (health-checkins-<uuid>, inline), and the
-- recovery score of every date with a figure for sleep, HRV or resting heart rate (async, kept
-- by the day projector beside the days and nights it reads). A score is stored under its
-- formula's version, with the figures it was computed from, so a later formula can live beside
-- recovery-v1 without changing its answers.
CREATE TABLE rm_health_checkins (
  owner_id uuid     NOT NULL,
  date     date     NOT NULL,
  feeling  smallint NOT NULL CHECK (feeling BETWEEN 1 AND 5),
  note     text,
  PRIMARY KEY (owner_id, date)
);

CREATE TABLE rm_health_recovery (
  owner_id        uuid             NOT NULL,
  formula_version text             NOT NULL,
  date            date             NOT NULL,
  score           double precision,                 -- null: unscorable or calibrating
  status          text             NOT NULL,
  inputs          jsonb            NOT NULL,        -- the date's figures the score was computed from
  result          jsonb            NOT NULL,        -- the whole RecoveryScore (components, baselines, z)
  PRIMARY KEY (owner_id, formula_version, date)
);

-- The data-integrity audit (async, its own projector): findings with a lifecycle, one per
-- condition (`key`), so the same condition found again updates its finding instead of adding
-- one. `id` is derived from owner and key, so a rebuild gives every finding the same id.
CREATE TABLE rm_health_findings (
  owner_id    uuid        NOT NULL,
  key         text        NOT NULL,
  id          uuid        NOT NULL,
  type        text        NOT NULL CHECK (type IN ('duplicates', 'historical_insertion', 'gap', 'source_divergence', 'mass_deletion')),
  severity    text        NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  metric      text,
  from_date   date        NOT NULL,
  to_date     date        NOT NULL,
  evidence    jsonb       NOT NULL,
  status      text        NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
  detected_at timestamptz NOT NULL,
  PRIMARY KEY (owner_id, key)
);
CREATE UNIQUE INDEX rm_health_findings_id_idx ON rm_health_findings (owner_id, id);

-- Per day and pair of sources of a cumulative metric: what each counted over the time both
-- covered (the audit's source_divergence rule reads the last 7 days of these).
CREATE TABLE rm_health_source_overlap (
  owner_id uuid             NOT NULL,
  metric   text             NOT NULL,
  date     date             NOT NULL,
  source_a text             NOT NULL,
  source_b text             NOT NULL,
  a        double precision NOT NULL,
  b        double precision NOT NULL,
  seconds  bigint           NOT NULL,
  PRIMARY KEY (owner_id, metric, date, source_a, source_b)
);

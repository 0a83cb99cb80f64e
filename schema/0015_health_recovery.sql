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

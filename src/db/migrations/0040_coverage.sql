-- Reviewer scheduling: coverage groups, plans and the account-wide buffer setting. Every
-- row belongs to one account; members are stored as the JSON the account wrote.
CREATE TABLE coverage_groups (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL,
  name        TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('combo', 'case')),
  combos      TEXT NOT NULL DEFAULT '[]',
  cases       TEXT NOT NULL DEFAULT '[]',
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
) STRICT;

CREATE INDEX coverage_groups_account ON coverage_groups (account_id, created_at);

-- A plan is its declaration (what to cover) plus its schedule (how it is fed), written
-- separately and read together.
CREATE TABLE coverage_plans (
  id               TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL,
  name             TEXT NOT NULL,
  runs_per_cell    INTEGER NOT NULL CHECK (runs_per_cell BETWEEN 1 AND 100),
  combo_group_ids  TEXT NOT NULL DEFAULT '[]',
  case_group_ids   TEXT NOT NULL DEFAULT '[]',
  combos           TEXT NOT NULL DEFAULT '[]',
  cases            TEXT NOT NULL DEFAULT '[]',
  outer_axis       TEXT NOT NULL DEFAULT 'case' CHECK (outer_axis IN ('case', 'combination')),
  paused           INTEGER NOT NULL DEFAULT 0,
  auto_top_up      INTEGER NOT NULL DEFAULT 0,
  -- NULL kind: inherit the account's setting.
  buffer_kind      TEXT CHECK (buffer_kind IN ('bounded', 'unbounded')),
  buffer_runs      INTEGER,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
) STRICT;

CREATE INDEX coverage_plans_account ON coverage_plans (account_id, created_at);

-- Only an account that chose a buffer target has a row.
CREATE TABLE coverage_settings (
  account_id   TEXT PRIMARY KEY,
  buffer_kind  TEXT NOT NULL CHECK (buffer_kind IN ('bounded', 'unbounded')),
  buffer_runs  INTEGER,
  updated_at   TEXT NOT NULL
) STRICT;

-- Cell counting (src/coverage/cell-counts.ts) looks runs and in-flight jobs up by a cell's
-- identity. The runs index carries what the count reads (review lookup by id, test type,
-- the gg configuration and the job it came from) so it never visits the table.
CREATE INDEX runs_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, id, test_type, gg_config_id, job_id)
  WHERE state = 'completed' AND decode_error IS NULL;
CREATE INDEX jobs_in_flight_cell ON jobs (test_case_slug, test_case_version, variant, harness_slug, model_id)
  WHERE state IN ('queued', 'pending', 'dispatched', 'starting', 'running');
CREATE INDEX jobs_origin_in_flight ON jobs (origin, state)
  WHERE origin IS NOT NULL AND state IN ('queued', 'pending', 'dispatched', 'starting', 'running');

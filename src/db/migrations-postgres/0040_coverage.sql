-- PostgreSQL twin of migrations/0040_coverage.sql.
CREATE TABLE coverage_groups (
  id          text COLLATE "C" PRIMARY KEY,
  account_id  text COLLATE "C" NOT NULL,
  name        text COLLATE "C" NOT NULL,
  kind        text COLLATE "C" NOT NULL CHECK (kind IN ('combo', 'case')),
  combos      text COLLATE "C" NOT NULL DEFAULT '[]',
  cases       text COLLATE "C" NOT NULL DEFAULT '[]',
  created_at  text COLLATE "C" NOT NULL,
  updated_at  text COLLATE "C" NOT NULL
);

CREATE INDEX coverage_groups_account ON coverage_groups (account_id, created_at);

CREATE TABLE coverage_plans (
  id               text COLLATE "C" PRIMARY KEY,
  account_id       text COLLATE "C" NOT NULL,
  name             text COLLATE "C" NOT NULL,
  runs_per_cell    integer NOT NULL CHECK (runs_per_cell BETWEEN 1 AND 100),
  combo_group_ids  text COLLATE "C" NOT NULL DEFAULT '[]',
  case_group_ids   text COLLATE "C" NOT NULL DEFAULT '[]',
  combos           text COLLATE "C" NOT NULL DEFAULT '[]',
  cases            text COLLATE "C" NOT NULL DEFAULT '[]',
  outer_axis       text COLLATE "C" NOT NULL DEFAULT 'case' CHECK (outer_axis IN ('case', 'combination')),
  paused           integer NOT NULL DEFAULT 0,
  auto_top_up      integer NOT NULL DEFAULT 0,
  buffer_kind      text COLLATE "C" CHECK (buffer_kind IN ('bounded', 'unbounded')),
  buffer_runs      bigint,
  created_at       text COLLATE "C" NOT NULL,
  updated_at       text COLLATE "C" NOT NULL
);

CREATE INDEX coverage_plans_account ON coverage_plans (account_id, created_at);

CREATE TABLE coverage_settings (
  account_id   text COLLATE "C" PRIMARY KEY,
  buffer_kind  text COLLATE "C" NOT NULL CHECK (buffer_kind IN ('bounded', 'unbounded')),
  buffer_runs  bigint,
  updated_at   text COLLATE "C" NOT NULL
);

CREATE INDEX runs_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, id, test_type, gg_config_id, job_id)
  WHERE state = 'completed' AND decode_error IS NULL;
CREATE INDEX jobs_in_flight_cell ON jobs (test_case_slug, test_case_version, variant, harness_slug, model_id)
  WHERE state IN ('queued', 'pending', 'dispatched', 'starting', 'running');
CREATE INDEX jobs_origin_in_flight ON jobs (origin, state)
  WHERE origin IS NOT NULL AND state IN ('queued', 'pending', 'dispatched', 'starting', 'running');

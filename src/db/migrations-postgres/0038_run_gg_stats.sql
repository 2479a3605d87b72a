-- PostgreSQL twin of migrations/0038_run_gg_stats.sql. The SQLite file also lifts the gg
-- summaries of runs stored before it; that has no twin: a PostgreSQL store is created by this
-- build or copied from an up-to-date SQLite store, so every run here was lifted when stored.
CREATE TABLE run_gg_stats (
  run_id              text COLLATE "C" PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  model_id            text COLLATE "C" NOT NULL,
  execution_mode      text COLLATE "C",
  has_provider_data   integer NOT NULL,
  turns               bigint,
  slice_turns         bigint,
  transpile           bigint,
  program_fault       bigint,
  sandbox_limit       bigint,
  model_api           bigint,
  missing_completion  bigint,
  errors_by_type      text COLLATE "C",
  tool_calls          bigint,
  tool_failures       text COLLATE "C"
);

CREATE INDEX run_gg_stats_model ON run_gg_stats (model_id);
CREATE INDEX runs_harness ON runs (harness);

CREATE TABLE run_provider_slices (
  run_id        text COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  provider      text COLLATE "C",
  model_id      text COLLATE "C",
  calls         bigint,
  total_tokens  bigint,
  cost          double precision,
  rejected      bigint,
  turns         bigint,
  working       bigint,
  stalls        bigint,
  cache_misses  bigint,
  model_faults  bigint,
  first_of_pair      integer NOT NULL DEFAULT 1,
  first_of_provider  integer NOT NULL DEFAULT 1
);

CREATE INDEX run_provider_slices_run ON run_provider_slices (run_id);
CREATE INDEX run_provider_slices_groups ON run_provider_slices (provider, model_id, first_of_pair, first_of_provider, calls,
  total_tokens, cost, rejected, turns, working, stalls, cache_misses);

CREATE TABLE run_provider_slice_errors (
  run_id      text COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  provider    text COLLATE "C",
  model_id    text COLLATE "C",
  error_type  text COLLATE "C" NOT NULL,
  n           bigint NOT NULL
);

CREATE INDEX run_provider_slice_errors_run ON run_provider_slice_errors (run_id);

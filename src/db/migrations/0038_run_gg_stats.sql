-- gg run summaries lifted at store time, so provider and accuracy statistics and the
-- candidate fault rate aggregate columns instead of decoding records. A null is a figure
-- the record did not carry, never a default; sums skip it.
CREATE TABLE run_gg_stats (
  run_id              TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  model_id            TEXT NOT NULL,
  execution_mode      TEXT,                -- responses_as_code | tool_calling; null: not recorded
  has_provider_data   INTEGER NOT NULL,    -- the summary carried providerStats
  turns               INTEGER,             -- errors.turns
  slice_turns         INTEGER,             -- providerStats[].turns summed (for records without errors.turns)
  transpile           INTEGER,
  program_fault       INTEGER,
  sandbox_limit       INTEGER,
  model_api           INTEGER,
  missing_completion  INTEGER,
  errors_by_type      TEXT,                -- JSON { type: n }
  tool_calls          INTEGER,
  tool_failures       TEXT                 -- JSON { type: n }
) STRICT;

CREATE INDEX run_gg_stats_model ON run_gg_stats (model_id);

-- One row per providerStats slice of a gg run.
CREATE TABLE run_provider_slices (
  run_id        TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  provider      TEXT,                      -- null: the calls named no provider
  model_id      TEXT,                      -- null: recorded before the first usage delta named the model
  calls         INTEGER,
  total_tokens  INTEGER,
  cost          REAL,                      -- cost.actual, USD
  rejected      INTEGER,
  turns         INTEGER,
  working       INTEGER,
  stalls        INTEGER,
  cache_misses  INTEGER,
  model_faults  INTEGER                    -- turns ended by model_retry_exhausted, model_timeout or model_parse
) STRICT;

CREATE INDEX run_provider_slices_run ON run_provider_slices (run_id);
CREATE INDEX run_provider_slices_model ON run_provider_slices (model_id, provider);

CREATE TABLE run_provider_slice_errors (
  run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  provider    TEXT,
  model_id    TEXT,
  error_type  TEXT NOT NULL,
  n           INTEGER NOT NULL
) STRICT;

CREATE INDEX run_provider_slice_errors_run ON run_provider_slice_errors (run_id);

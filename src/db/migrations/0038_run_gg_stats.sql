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
-- runsScanned counts gg runs without reading the wide runs rows.
CREATE INDEX runs_harness ON runs (harness);

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
  model_faults  INTEGER,                   -- turns ended by model_retry_exhausted, model_timeout or model_parse
  -- 1 on the run's first slice of this (provider, model), and of this provider: the run
  -- counts sum these instead of counting distinct runs.
  first_of_pair      INTEGER NOT NULL DEFAULT 1,
  first_of_provider  INTEGER NOT NULL DEFAULT 1
) STRICT;

CREATE INDEX run_provider_slices_run ON run_provider_slices (run_id);
-- Covers the provider statistics read: it walks this index in group order and never visits
-- the table, instead of looking each slice up at random.
CREATE INDEX run_provider_slices_groups ON run_provider_slices (provider, model_id, first_of_pair, first_of_provider, calls,
  total_tokens, cost, rejected, turns, working, stalls, cache_misses);

CREATE TABLE run_provider_slice_errors (
  run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  provider    TEXT,
  model_id    TEXT,
  error_type  TEXT NOT NULL,
  n           INTEGER NOT NULL
) STRICT;

CREATE INDEX run_provider_slice_errors_run ON run_provider_slice_errors (run_id);

-- Runs stored before this migration: lift their summaries the way the store does (src/stats/gg-stats-rows.ts).
INSERT INTO run_gg_stats (run_id, model_id, execution_mode, has_provider_data, turns, slice_turns, transpile, program_fault, sandbox_limit,
    model_api, missing_completion, errors_by_type, tool_calls, tool_failures)
SELECT r.id, r.model_id,
       CASE WHEN json_extract(s.summary, '$.executionMode') IN ('responses_as_code', 'tool_calling') THEN json_extract(s.summary, '$.executionMode') END,
       json_type(s.summary, '$.providerStats') = 'array',
       CASE WHEN json_type(s.summary, '$.errors.turns') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.errors.turns') AS INTEGER) END,
       (SELECT SUM(CAST(json_extract(p.value, '$.turns') AS INTEGER)) FROM json_each(s.summary, '$.providerStats') p
         WHERE json_type(p.value, '$.turns') IN ('integer', 'real')),
       CASE WHEN json_type(s.summary, '$.errors.transpile') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.errors.transpile') AS INTEGER) END,
       CASE WHEN json_type(s.summary, '$.errors.programFault') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.errors.programFault') AS INTEGER) END,
       CASE WHEN json_type(s.summary, '$.errors.sandboxLimit') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.errors.sandboxLimit') AS INTEGER) END,
       CASE WHEN json_type(s.summary, '$.errors.modelApi') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.errors.modelApi') AS INTEGER) END,
       CASE WHEN json_type(s.summary, '$.errors.missingCompletion') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.errors.missingCompletion') AS INTEGER) END,
       CASE WHEN json_type(s.summary, '$.errors.byType') = 'object' THEN json_extract(s.summary, '$.errors.byType') END,
       CASE WHEN json_type(s.summary, '$.toolCalls') IN ('integer', 'real') THEN CAST(json_extract(s.summary, '$.toolCalls') AS INTEGER) END,
       CASE json_type(s.summary, '$.toolFailures')
         WHEN 'object' THEN json_extract(s.summary, '$.toolFailures')
         WHEN 'integer' THEN json_object('unspecified', json_extract(s.summary, '$.toolFailures')) END
  FROM runs r, (SELECT id, json_extract(record, '$.subject.ggSummary') AS summary FROM runs) s
 WHERE s.id = r.id AND r.harness = 'gg' AND r.decode_error IS NULL AND json_type(s.summary) = 'object';

INSERT INTO run_provider_slices (run_id, provider, model_id, calls, total_tokens, cost, rejected, turns, working, stalls, cache_misses, model_faults)
SELECT g.run_id, json_extract(p.value, '$.provider'), json_extract(p.value, '$.modelId'),
       CAST(json_extract(p.value, '$.calls') AS INTEGER),
       CASE WHEN json_type(p.value, '$.tokens') = 'object' THEN
         COALESCE(json_extract(p.value, '$.tokens.uncachedInput'), 0) + COALESCE(json_extract(p.value, '$.tokens.cachedInput'), 0)
         + COALESCE(json_extract(p.value, '$.tokens.output'), 0) + COALESCE(json_extract(p.value, '$.tokens.reasoning'), 0) END,
       json_extract(p.value, '$.cost.actual'),
       CAST(json_extract(p.value, '$.rejected') AS INTEGER), CAST(json_extract(p.value, '$.turns') AS INTEGER),
       CAST(json_extract(p.value, '$.working') AS INTEGER), CAST(json_extract(p.value, '$.stalls') AS INTEGER),
       CAST(json_extract(p.value, '$.cacheMisses') AS INTEGER),
       CASE WHEN json_type(p.value, '$.errors') = 'object' THEN
         COALESCE(json_extract(p.value, '$.errors.model_retry_exhausted'), 0) + COALESCE(json_extract(p.value, '$.errors.model_timeout'), 0)
         + COALESCE(json_extract(p.value, '$.errors.model_parse'), 0) END
  FROM run_gg_stats g JOIN runs r ON r.id = g.run_id, json_each(r.record, '$.subject.ggSummary.providerStats') p
 WHERE g.has_provider_data = 1 AND json_type(p.value) = 'object';

INSERT INTO run_provider_slice_errors (run_id, provider, model_id, error_type, n)
SELECT g.run_id, json_extract(p.value, '$.provider'), json_extract(p.value, '$.modelId'), e.key, CAST(e.value AS INTEGER)
  FROM run_gg_stats g JOIN runs r ON r.id = g.run_id, json_each(r.record, '$.subject.ggSummary.providerStats') p, json_each(p.value, '$.errors') e
 WHERE g.has_provider_data = 1 AND json_type(p.value, '$.errors') = 'object' AND e.type = 'integer' AND e.value >= 0;

UPDATE run_provider_slices SET
  first_of_pair = rowid = (SELECT MIN(s.rowid) FROM run_provider_slices s
                            WHERE s.run_id = run_provider_slices.run_id AND s.provider IS run_provider_slices.provider AND s.model_id IS run_provider_slices.model_id),
  first_of_provider = rowid = (SELECT MIN(s.rowid) FROM run_provider_slices s
                                WHERE s.run_id = run_provider_slices.run_id AND s.provider IS run_provider_slices.provider);

-- The gg statistics read a summary as the original system does (open-points, third round,
-- "Statistics"): an absent execution mode is tool calling; a run has provider data only when
-- its slice list is non-empty; call failures sit under errors.toolFailures (an older record's
-- top-level toolFailures is read too); a slice naming no model belongs to the run's sole
-- model; a slice's cost is its comparable cost. Runs lifted before this migration are lifted
-- again the way the store now lifts them (src/stats/gg-stats-rows.ts).
ALTER TABLE run_gg_stats ADD COLUMN sole_model TEXT;      -- model_id when no slotCosts entry names another model; null: several models
ALTER TABLE run_gg_stats ADD COLUMN errors_total INTEGER; -- errors.errors: the errored turns

UPDATE run_gg_stats SET
  execution_mode = CASE WHEN json_extract(s.summary, '$.executionMode') = 'responses_as_code' THEN 'responses_as_code' ELSE 'tool_calling' END,
  has_provider_data = json_type(s.summary, '$.providerStats') = 'array'
    AND EXISTS (SELECT 1 FROM json_each(s.summary, '$.providerStats') p WHERE p.type = 'object'),
  tool_failures = CASE
    WHEN s.failures_type IS NULL THEN NULL
    WHEN s.failures_type IN ('integer', 'real') AND json_extract(s.summary, s.failures_path) >= 0
      THEN json_object('unspecified', CAST(json_extract(s.summary, s.failures_path) AS INTEGER))
    WHEN s.failures_type = 'object'
      THEN COALESCE((SELECT json_group_object(f.key, CAST(f.value AS INTEGER)) FROM json_each(s.summary, s.failures_path) f
                      WHERE f.type IN ('integer', 'real') AND f.value >= 0), '{}')
    ELSE '{}' END,
  sole_model = CASE WHEN json_type(s.summary, '$.slotCosts') = 'array' AND EXISTS (
      SELECT 1 FROM json_each(s.summary, '$.slotCosts') c
       WHERE CASE WHEN c.type = 'object' AND json_type(c.value, '$.modelId') = 'text' THEN json_extract(c.value, '$.modelId') END NOT IN ('', run_gg_stats.model_id))
    THEN NULL ELSE run_gg_stats.model_id END,
  errors_total = CASE WHEN json_type(s.summary, '$.errors.errors') IN ('integer', 'real') AND json_extract(s.summary, '$.errors.errors') >= 0
    THEN CAST(json_extract(s.summary, '$.errors.errors') AS INTEGER) END
FROM (SELECT id, summary,
             CASE WHEN json_type(summary, '$.errors.toolFailures') IS NOT NULL THEN '$.errors.toolFailures' ELSE '$.toolFailures' END AS failures_path,
             COALESCE(json_type(summary, '$.errors.toolFailures'), json_type(summary, '$.toolFailures')) AS failures_type
        FROM (SELECT id, json_extract(record, '$.subject.ggSummary') AS summary FROM runs)) s
WHERE s.id = run_gg_stats.run_id;

-- The slices again, each under its own model or the run's sole model, costed comparably.
DELETE FROM run_provider_slices;
DELETE FROM run_provider_slice_errors;

INSERT INTO run_provider_slices (run_id, provider, model_id, calls, total_tokens, cost, rejected, turns, working, stalls, cache_misses, model_faults)
SELECT g.run_id, json_extract(p.value, '$.provider'),
       COALESCE(CASE WHEN json_type(p.value, '$.modelId') = 'text' AND json_extract(p.value, '$.modelId') <> '' THEN json_extract(p.value, '$.modelId') END, g.sole_model),
       CAST(json_extract(p.value, '$.calls') AS INTEGER),
       CASE WHEN json_type(p.value, '$.tokens') = 'object' THEN
         COALESCE(json_extract(p.value, '$.tokens.uncachedInput'), 0) + COALESCE(json_extract(p.value, '$.tokens.cachedInput'), 0)
         + COALESCE(json_extract(p.value, '$.tokens.output'), 0) + COALESCE(json_extract(p.value, '$.tokens.reasoning'), 0) END,
       CASE WHEN json_type(p.value, '$.cost.comparable') IN ('integer', 'real') THEN json_extract(p.value, '$.cost.comparable') END,
       CAST(json_extract(p.value, '$.rejected') AS INTEGER), CAST(json_extract(p.value, '$.turns') AS INTEGER),
       CAST(json_extract(p.value, '$.working') AS INTEGER), CAST(json_extract(p.value, '$.stalls') AS INTEGER),
       CAST(json_extract(p.value, '$.cacheMisses') AS INTEGER),
       CASE WHEN json_type(p.value, '$.errors') = 'object' THEN
         COALESCE(json_extract(p.value, '$.errors.model_retry_exhausted'), 0) + COALESCE(json_extract(p.value, '$.errors.model_timeout'), 0)
         + COALESCE(json_extract(p.value, '$.errors.model_parse'), 0) END
  FROM run_gg_stats g JOIN runs r ON r.id = g.run_id, json_each(r.record, '$.subject.ggSummary.providerStats') p
 WHERE g.has_provider_data = 1 AND json_type(p.value) = 'object';

INSERT INTO run_provider_slice_errors (run_id, provider, model_id, error_type, n)
SELECT g.run_id, json_extract(p.value, '$.provider'),
       COALESCE(CASE WHEN json_type(p.value, '$.modelId') = 'text' AND json_extract(p.value, '$.modelId') <> '' THEN json_extract(p.value, '$.modelId') END, g.sole_model),
       e.key, CAST(e.value AS INTEGER)
  FROM run_gg_stats g JOIN runs r ON r.id = g.run_id, json_each(r.record, '$.subject.ggSummary.providerStats') p, json_each(p.value, '$.errors') e
 WHERE g.has_provider_data = 1 AND json_type(p.value, '$.errors') = 'object' AND e.type = 'integer' AND e.value >= 0;

UPDATE run_provider_slices SET
  first_of_pair = rowid = (SELECT MIN(s.rowid) FROM run_provider_slices s
                            WHERE s.run_id = run_provider_slices.run_id AND s.provider IS run_provider_slices.provider AND s.model_id IS run_provider_slices.model_id),
  first_of_provider = rowid = (SELECT MIN(s.rowid) FROM run_provider_slices s
                                WHERE s.run_id = run_provider_slices.run_id AND s.provider IS run_provider_slices.provider);

-- A gg run's cell is its configuration and the model bound to every agent. A run took its
-- bindings from the job that produced it, so a run without one (hand-ingested, or from a job
-- whose launch carried no slotModels) counted in every binding of its configuration. Now,
-- as the original lifts `run.gg_models` off the recorded capability set, a run reads them
-- from its record (src/jobs/bind-gg-models.ts recordedGgModels: each agent naming a model,
-- `agent=model` in agent order joined by `,`, an older set's `primary` slot being `root`);
-- a record that carries none puts the run in no binding's cell. A job reads them from its
-- launch request's set the same way when 0087 found no slotModels there. The original's
-- drivers also name the configuration in the set (`presetId`), read when nothing else does.
ALTER TABLE runs ADD COLUMN gg_models TEXT;

-- Every set to read, of gg runs and of gg jobs still without bindings, then its bindings.
CREATE TEMP TABLE gg_sets AS
  SELECT 'run' AS owner, id, json_extract(record, '$.subject.ggCapabilitySet') AS capability_set
  FROM runs WHERE harness = 'gg' AND json_valid(record)
  UNION ALL
  SELECT 'job', id, json_extract(request, '$.ggCapabilitySet') FROM jobs
  WHERE harness_slug = 'gg' AND gg_models IS NULL AND json_valid(request);

CREATE TEMP TABLE gg_bindings AS
  SELECT owner, id, (
    SELECT group_concat(agent || '=' || model, ',') FROM (
      SELECT CASE WHEN name = 'primary' THEN 'root' ELSE name END AS agent, model FROM (
        SELECT json_extract(a.value, CASE WHEN is_agents THEN '$.name' ELSE '$.slot' END) AS name, json_extract(a.value, '$.modelId') AS model
        FROM json_each(capability_set, CASE WHEN is_agents THEN '$.agents' ELSE '$.slots' END) AS a
      ) WHERE typeof(name) = 'text' AND name <> '' AND typeof(model) = 'text' AND trim(model) <> ''
      ORDER BY agent
    )
  ) AS models
  FROM (SELECT *, json_type(capability_set, '$.agents') IS 'array' AS is_agents FROM gg_sets WHERE json_type(capability_set) = 'object');

UPDATE runs SET gg_models = b.models FROM gg_bindings AS b WHERE b.owner = 'run' AND b.id = runs.id;
UPDATE jobs SET gg_models = b.models FROM gg_bindings AS b WHERE b.owner = 'job' AND b.id = jobs.id;
DROP TABLE gg_bindings;
DROP TABLE gg_sets;

UPDATE runs SET gg_config_id = json_extract(record, '$.subject.ggCapabilitySet.presetId')
WHERE gg_config_id IS NULL AND json_valid(record) AND json_type(record, '$.subject.ggCapabilitySet.presetId') = 'text';

-- The counts and the gate's evidence read the run's bindings beside its configuration, from
-- the same indexes (a table read would walk the wide record's pages).
DROP INDEX runs_cell;
CREATE INDEX runs_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, finished_at, id, test_type, gg_config_id, job_id, gg_models)
  WHERE state = 'completed' AND decode_error IS NULL;
DROP INDEX runs_gate_cell;
CREATE INDEX runs_gate_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, id, gg_config_id, job_id, gg_models,
  test_type, validation_loaded, validator_rating_rank, state, decode_error) WHERE state = 'completed' AND decode_error IS NULL;

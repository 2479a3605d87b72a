-- A gg coverage cell is a configuration together with the model bound to every agent, so two
-- bindings of one configuration are two cells. A job records its bindings as one canonical
-- string, `agent=model` in agent order joined by `,` (src/jobs/bind-gg-models.ts
-- boundModelKey); a run takes its job's. Older gg jobs get theirs from the launch request.
ALTER TABLE jobs ADD COLUMN gg_models TEXT;

UPDATE jobs SET gg_models = (
  SELECT group_concat(key || '=' || value, ',')
  FROM (SELECT key, value FROM json_each(jobs.request, '$.ggSlotModels') ORDER BY key)
) WHERE harness_slug = 'gg' AND json_type(request, '$.ggSlotModels') = 'object';

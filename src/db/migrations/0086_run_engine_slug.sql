-- Runs recorded by the original system's drivers name their engine `subject.engineSlug` and
-- their gg configuration `subject.ggCapabilitySet.preset` (open-points, third round, "Run
-- records"); the store now reads both (src/runs/decode-run-record.ts). Runs stored before
-- are lifted again here, their summary card with them, so they land in their engine's cells.
UPDATE runs SET
  engine = json_extract(record, '$.subject.engineSlug'),
  summary = CASE WHEN summary IS NULL THEN NULL ELSE json_set(summary, '$.subject.engine', json_extract(record, '$.subject.engineSlug')) END
WHERE json_type(record, '$.subject.engine') IS NOT 'text' AND json_type(record, '$.subject.engineSlug') = 'text';

UPDATE runs SET
  gg_config_name = json_extract(record, '$.subject.ggCapabilitySet.preset'),
  summary = CASE WHEN summary IS NULL THEN NULL ELSE json_set(summary, '$.subject.ggConfigName', json_extract(record, '$.subject.ggCapabilitySet.preset')) END
WHERE gg_config_name IS NULL
  AND json_type(record, '$.subject.ggConfigName') IS NOT 'text' AND json_type(record, '$.ggConfigName') IS NOT 'text'
  AND json_type(record, '$.subject.ggCapabilitySet.name') IS NOT 'text' AND json_type(record, '$.subject.ggCapabilitySet.preset') = 'text';

-- The catalog entry's second-round fields: the routing-provider id, the gg provider policy
-- and an SVG logo. Rates stay per Mtok in storage; the wire shows list and billed prices
-- per token.
ALTER TABLE models ADD COLUMN openrouter_slug TEXT;
-- 1 when provider_pin was set by hand; a pin stored before this migration was.
ALTER TABLE models ADD COLUMN provider_pin_by_hand INTEGER NOT NULL DEFAULT 0;
-- The provider last seen serving the model's official endpoint; the pin when none is set by hand.
ALTER TABLE models ADD COLUMN observed_provider TEXT;
ALTER TABLE models ADD COLUMN native_quantization TEXT;
ALTER TABLE models ADD COLUMN quantization_filter INTEGER NOT NULL DEFAULT 1;
ALTER TABLE models ADD COLUMN max_input_price REAL;
ALTER TABLE models ADD COLUMN max_output_price REAL;
ALTER TABLE models ADD COLUMN banned_providers TEXT NOT NULL DEFAULT '[]';
ALTER TABLE models ADD COLUMN unknown_quantization_providers TEXT NOT NULL DEFAULT '[]';
ALTER TABLE models ADD COLUMN logo_svg TEXT;
ALTER TABLE models ADD COLUMN provider_logo_url TEXT;

UPDATE models SET provider_pin_by_hand = 1 WHERE provider_pin IS NOT NULL;

-- Alias items were { alias, harnessFamily }; they are { slug, harnessFamily } now.
UPDATE models SET aliases = (
  SELECT COALESCE(json_group_array(json_object(
    'slug', COALESCE(json_extract(item.value, '$.slug'), json_extract(item.value, '$.alias')),
    'harnessFamily', json_extract(item.value, '$.harnessFamily'))), '[]')
  FROM json_each(models.aliases) AS item
);

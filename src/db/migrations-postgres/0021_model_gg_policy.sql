-- PostgreSQL twin of migrations/0021_model_gg_policy.sql.
ALTER TABLE models ADD COLUMN openrouter_slug text COLLATE "C";
ALTER TABLE models ADD COLUMN provider_pin_by_hand integer NOT NULL DEFAULT 0;
ALTER TABLE models ADD COLUMN observed_provider text COLLATE "C";
ALTER TABLE models ADD COLUMN native_quantization text COLLATE "C";
ALTER TABLE models ADD COLUMN quantization_filter integer NOT NULL DEFAULT 1;
ALTER TABLE models ADD COLUMN max_input_price double precision;
ALTER TABLE models ADD COLUMN max_output_price double precision;
ALTER TABLE models ADD COLUMN banned_providers text COLLATE "C" NOT NULL DEFAULT '[]';
ALTER TABLE models ADD COLUMN unknown_quantization_providers text COLLATE "C" NOT NULL DEFAULT '[]';
ALTER TABLE models ADD COLUMN logo_svg text COLLATE "C";
ALTER TABLE models ADD COLUMN provider_logo_url text COLLATE "C";

UPDATE models SET provider_pin_by_hand = 1 WHERE provider_pin IS NOT NULL;

-- SQLite's alias re-lift ({ alias } items become { slug }) has no twin: a PostgreSQL store is
-- created by this build or copied from an up-to-date SQLite store, so no old items exist here.

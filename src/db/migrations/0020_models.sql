-- Curated model catalog entries. Rates are USD per million tokens.
CREATE TABLE models (
  slug                TEXT PRIMARY KEY,
  name                TEXT,
  provider            TEXT,
  description         TEXT,
  aliases             TEXT NOT NULL DEFAULT '[]',  -- JSON [{ alias, harnessFamily }]
  provider_pin        TEXT,
  logo                TEXT,
  list_input          REAL,
  list_cached_input   REAL,
  list_output         REAL,
  list_as_of          TEXT,                        -- YYYY-MM-DD
  list_source         TEXT CHECK (list_source IN ('hand', 'router')),
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
) STRICT;

-- Billed-rate observations, append-only; a model's `price` is its latest row. Keyed by
-- model id rather than catalog entry, so history outlives a deleted or re-created entry.
CREATE TABLE model_price_observations (
  id            INTEGER PRIMARY KEY,
  model_slug    TEXT NOT NULL,
  observed_at   TEXT NOT NULL,
  input         REAL,
  cached_input  REAL,
  output        REAL,
  source        TEXT NOT NULL
) STRICT;

CREATE INDEX model_price_observations_model ON model_price_observations (model_slug, id);

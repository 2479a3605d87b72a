-- Saved gg configurations, account-scoped: what `presetId` and `ggConfigId: "saved:<id>"` name.
CREATE TABLE gg_configs (
  id             TEXT PRIMARY KEY,
  account_id     TEXT NOT NULL,
  name           TEXT NOT NULL,
  -- JSON objects: the capability set and a model per launch slot.
  capability_set TEXT NOT NULL,
  slot_models    TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
) STRICT;

CREATE INDEX gg_configs_account ON gg_configs (account_id, created_at);

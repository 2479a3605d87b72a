-- PostgreSQL twin of migrations/0013_gg_configs.sql.
CREATE TABLE gg_configs (
  id             text COLLATE "C" PRIMARY KEY,
  account_id     text COLLATE "C" NOT NULL,
  name           text COLLATE "C" NOT NULL,
  capability_set text COLLATE "C" NOT NULL,
  slot_models    text COLLATE "C" NOT NULL,
  created_at     text COLLATE "C" NOT NULL,
  updated_at     text COLLATE "C" NOT NULL
);

CREATE INDEX gg_configs_account ON gg_configs (account_id, created_at);

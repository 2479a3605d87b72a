-- PostgreSQL twin of migrations/0050_ladders.sql.
CREATE TABLE ladders (
  id              text COLLATE "C" PRIMARY KEY,
  account_id      text COLLATE "C" NOT NULL,
  name            text COLLATE "C" NOT NULL,
  runs_per_cell   integer NOT NULL CHECK (runs_per_cell >= 0),
  gate            text COLLATE "C" NOT NULL,
  combo_group_ids text COLLATE "C" NOT NULL DEFAULT '[]',
  combos          text COLLATE "C" NOT NULL DEFAULT '[]',
  outer_axis      text COLLATE "C" NOT NULL DEFAULT 'rung' CHECK (outer_axis IN ('rung', 'combination')),
  paused          integer NOT NULL,
  auto_top_up     integer NOT NULL,
  buffer_target   text COLLATE "C",
  created_at      text COLLATE "C" NOT NULL,
  updated_at      text COLLATE "C" NOT NULL
);

CREATE INDEX ladders_account ON ladders (account_id, created_at);

CREATE TABLE ladder_rungs (
  id        text COLLATE "C" PRIMARY KEY,
  ladder_id text COLLATE "C" NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  position  integer NOT NULL,
  slug      text COLLATE "C" NOT NULL,
  version   text COLLATE "C" NOT NULL,
  variant   text COLLATE "C" NOT NULL,
  engine    text COLLATE "C" NOT NULL DEFAULT 'none',
  runs      integer CHECK (runs IS NULL OR runs >= 0)
);

CREATE INDEX ladder_rungs_ladder ON ladder_rungs (ladder_id, position);

CREATE TABLE ladder_climbers (
  ladder_id  text COLLATE "C" NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  key        text COLLATE "C" NOT NULL,
  priority   integer NOT NULL DEFAULT 0,
  focused    integer NOT NULL DEFAULT 0,
  held       integer NOT NULL DEFAULT 0,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (ladder_id, key)
);

CREATE TABLE ladder_verdicts (
  ladder_id        text COLLATE "C" NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  climber_key      text COLLATE "C" NOT NULL,
  rung_id          text COLLATE "C" NOT NULL REFERENCES ladder_rungs (id) ON DELETE CASCADE,
  decided_version  text COLLATE "C" NOT NULL,
  decided_engine   text COLLATE "C" NOT NULL,
  outcome          text COLLATE "C" NOT NULL CHECK (outcome IN ('advanced', 'walled')),
  decided_at       text COLLATE "C" NOT NULL,
  override_outcome text COLLATE "C" CHECK (override_outcome IS NULL OR override_outcome IN ('advanced', 'walled')),
  override_at      text COLLATE "C",
  PRIMARY KEY (ladder_id, climber_key, rung_id, decided_version, decided_engine)
);

CREATE INDEX ladder_verdicts_rung ON ladder_verdicts (rung_id);

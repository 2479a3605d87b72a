-- Ladders: a reviewer's ordered climb of cases, account-scoped like coverage plans.
-- The declaration (name, runs, gate, members) and the schedule (outer_axis, paused,
-- auto_top_up, buffer_target) live in one row and are written separately.
CREATE TABLE ladders (
  id              TEXT PRIMARY KEY,
  account_id      TEXT NOT NULL,
  name            TEXT NOT NULL,
  runs_per_cell   INTEGER NOT NULL CHECK (runs_per_cell >= 0),
  gate            TEXT NOT NULL,               -- JSON Gate, every field filled
  combo_group_ids TEXT NOT NULL DEFAULT '[]',  -- JSON string[]
  combos          TEXT NOT NULL DEFAULT '[]',  -- JSON combination[] as written
  outer_axis      TEXT NOT NULL DEFAULT 'rung' CHECK (outer_axis IN ('rung', 'combination')),
  paused          INTEGER NOT NULL,
  auto_top_up     INTEGER NOT NULL,
  buffer_target   TEXT,                        -- JSON tagged target; NULL inherits the account's
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
) STRICT;

CREATE INDEX ladders_account ON ladders (account_id, created_at);

-- Rungs carry ids minted here and never reused: verdicts point at the id, never the position.
CREATE TABLE ladder_rungs (
  id        TEXT PRIMARY KEY,
  ladder_id TEXT NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  position  INTEGER NOT NULL,
  slug      TEXT NOT NULL,
  version   TEXT NOT NULL,
  variant   TEXT NOT NULL,
  engine    TEXT NOT NULL DEFAULT 'none',
  runs      INTEGER CHECK (runs IS NULL OR runs >= 0)  -- NULL inherits runs_per_cell
) STRICT;

CREATE INDEX ladder_rungs_ladder ON ladder_rungs (ladder_id, position);

-- One combination's steering on one ladder, keyed by the combination's canonical key.
CREATE TABLE ladder_climbers (
  ladder_id  TEXT NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  priority   INTEGER NOT NULL DEFAULT 0,
  focused    INTEGER NOT NULL DEFAULT 0,
  held       INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (ladder_id, key)
) STRICT;

-- Verdicts a top-up recorded, per climber and rung, against the pin they were decided on:
-- a bump keeps the old verdict as history and re-pinning back restores it. The manual
-- override sits beside the automatic outcome and never replaces it.
CREATE TABLE ladder_verdicts (
  ladder_id        TEXT NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  climber_key      TEXT NOT NULL,
  rung_id          TEXT NOT NULL REFERENCES ladder_rungs (id) ON DELETE CASCADE,
  decided_version  TEXT NOT NULL,
  decided_engine   TEXT NOT NULL,
  outcome          TEXT NOT NULL CHECK (outcome IN ('advanced', 'walled')),
  decided_at       TEXT NOT NULL,
  override_outcome TEXT CHECK (override_outcome IS NULL OR override_outcome IN ('advanced', 'walled')),
  override_at      TEXT,
  PRIMARY KEY (ladder_id, climber_key, rung_id, decided_version, decided_engine)
) STRICT;

CREATE INDEX ladder_verdicts_rung ON ladder_verdicts (rung_id);

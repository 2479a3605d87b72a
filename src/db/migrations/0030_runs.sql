-- Stored runs: the driver's record whole, plus the lifted columns listings filter and sort on.
CREATE TABLE runs (
  id                 TEXT PRIMARY KEY,
  job_id             TEXT,
  record             TEXT NOT NULL,           -- the record as sent (JSON)
  record_format      INTEGER NOT NULL,
  decode_error       TEXT,                    -- non-null: this build cannot read the record
  events             TEXT NOT NULL DEFAULT '[]',
  state              TEXT NOT NULL,           -- record.status.state, hyphenated
  published          INTEGER NOT NULL DEFAULT 0,
  published_at       TEXT,
  started_at         TEXT,
  finished_at        TEXT,
  test_case_slug     TEXT NOT NULL,
  test_case_version  TEXT NOT NULL,
  variant            TEXT NOT NULL,
  harness            TEXT NOT NULL,
  model_id           TEXT NOT NULL,
  engine             TEXT NOT NULL DEFAULT 'none',
  test_type          TEXT,
  gg_config_id       TEXT,
  gg_config_name     TEXT,
  run_time_seconds   REAL,
  tokens_total       INTEGER,
  cost               REAL,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL
) STRICT;

CREATE INDEX runs_model ON runs (model_id);
CREATE INDEX runs_case ON runs (test_case_slug, test_case_version);

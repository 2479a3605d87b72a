-- Stored runs: the driver's record whole, plus the lifted columns listings filter and sort on.
-- A record this build cannot decode is kept with whatever identity could be lifted
-- (empty strings otherwise) and its decode_error; listings skip it.
CREATE TABLE runs (
  id                   TEXT PRIMARY KEY,
  job_id               TEXT,
  record_format        INTEGER NOT NULL,        -- the run record format it was decoded with
  decode_error         TEXT,                    -- non-null: this build cannot read the record
  state                TEXT NOT NULL,           -- record.status.state, hyphenated
  published            INTEGER NOT NULL DEFAULT 0,
  published_at         TEXT,
  started_at           TEXT,
  finished_at          TEXT,
  test_case_slug       TEXT NOT NULL,
  test_case_version    TEXT NOT NULL,
  version_rank         INTEGER NOT NULL DEFAULT 0, -- major * 1e6 + minor, for latestVersions
  variant              TEXT NOT NULL,
  harness              TEXT NOT NULL,
  model_id             TEXT NOT NULL,
  engine               TEXT NOT NULL DEFAULT 'none',
  test_type            TEXT,
  gg_config_id         TEXT,
  gg_config_name       TEXT,
  run_time_seconds     REAL,
  tokens_total         INTEGER,                 -- null: the record reported no tokens
  cost                 REAL,                    -- null: unknown cost
  link_source_repo     TEXT,                    -- set by a release; else the record's links
  link_playable_build  TEXT,
  -- Derived from reviews and the case version; refreshed when either changes (see grade_key).
  review_count         INTEGER NOT NULL DEFAULT 0,
  aesthetic            TEXT,
  aesthetic_rank       INTEGER,
  rating_rank          INTEGER,                 -- 0 broken .. 4 flawless; null when unrated
  validator_rated      INTEGER NOT NULL DEFAULT 0,
  grade_key            TEXT,                    -- which ingest the grade was computed against; null: never
  case_name            TEXT,
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  -- Wide columns last, the record and events at the very end: a listing reads every column it
  -- needs without walking the record's overflow pages.
  summary              TEXT,                    -- the record-derived part of the summary card (JSON)
  grade                TEXT,                    -- { rating, aesthetic, validatorRated, score } JSON
  validator_verdicts   TEXT NOT NULL DEFAULT '{}', -- verdict id -> pass, from the record's debug scripts
  record               TEXT NOT NULL,           -- the record as sent (JSON)
  events               TEXT NOT NULL DEFAULT '[]'
) STRICT;

CREATE INDEX runs_model ON runs (model_id);
CREATE INDEX runs_case ON runs (test_case_slug, test_case_version);

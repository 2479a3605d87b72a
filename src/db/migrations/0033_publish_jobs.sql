-- Publish jobs. At most one live job per run: the partial unique index makes
-- check-and-enqueue atomic even across processes. created_ms decides staleness (1 hour).
CREATE TABLE publish_jobs (
  id          TEXT PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  state       TEXT NOT NULL CHECK (state IN ('live', 'succeeded', 'failed')),
  detail      TEXT,
  source_repo TEXT,
  playable_build TEXT,
  created_ms  INTEGER NOT NULL,
  updated_at  TEXT NOT NULL
) STRICT;

CREATE UNIQUE INDEX publish_jobs_one_live ON publish_jobs (run_id) WHERE state = 'live';
CREATE INDEX publish_jobs_run ON publish_jobs (run_id, created_ms);

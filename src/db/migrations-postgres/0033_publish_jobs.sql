-- PostgreSQL twin of migrations/0033_publish_jobs.sql. created_ms is epoch milliseconds.
CREATE TABLE publish_jobs (
  id          text COLLATE "C" PRIMARY KEY,
  run_id      text COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  state       text COLLATE "C" NOT NULL CHECK (state IN ('live', 'succeeded', 'failed')),
  detail      text COLLATE "C",
  source_repo text COLLATE "C",
  playable_build text COLLATE "C",
  created_ms  bigint NOT NULL,
  updated_at  text COLLATE "C" NOT NULL
);

CREATE UNIQUE INDEX publish_jobs_one_live ON publish_jobs (run_id) WHERE state = 'live';
CREATE INDEX publish_jobs_run ON publish_jobs (run_id, created_ms);

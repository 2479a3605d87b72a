-- What each run job uploaded as showcase media (PUT /runs/{id}/showcase/{file}). Its first
-- upload binds the job to one run id, and no other job may upload for that run or store a
-- record under it; `files` and `bytes` count every upload the job made, against the
-- per-job bounds (SHOWCASE_JOB_MAX_FILES, SHOWCASE_JOB_MAX_MIB).
CREATE TABLE showcase_uploads (
  job_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  files  INTEGER NOT NULL DEFAULT 0,
  bytes  INTEGER NOT NULL DEFAULT 0
) STRICT;

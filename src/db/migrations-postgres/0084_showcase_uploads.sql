-- PostgreSQL twin of migrations/0084_showcase_uploads.sql.
CREATE TABLE showcase_uploads (
  job_id text COLLATE "C" PRIMARY KEY,
  run_id text COLLATE "C" NOT NULL UNIQUE,
  files  bigint NOT NULL DEFAULT 0,
  bytes  bigint NOT NULL DEFAULT 0
);

-- PostgreSQL twin of migrations/0012_harness_config.sql.
CREATE TABLE harness_config (
  slug            text COLLATE "C" PRIMARY KEY,
  max_parallelism integer CHECK (max_parallelism IS NULL OR max_parallelism >= 1),
  updated_at      text COLLATE "C" NOT NULL
);

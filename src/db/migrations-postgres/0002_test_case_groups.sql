-- PostgreSQL twin of migrations/0002_test_case_groups.sql.
CREATE TABLE test_case_versions (
  slug          text COLLATE "C" NOT NULL,
  version       text COLLATE "C" NOT NULL,
  record_format integer NOT NULL,
  store_dir     text COLLATE "C" NOT NULL,
  fingerprint   text COLLATE "C" NOT NULL,
  content_hash  text COLLATE "C" NOT NULL,
  experimental  integer NOT NULL DEFAULT 0,
  ingested_at   text COLLATE "C" NOT NULL,
  PRIMARY KEY (slug, version)
);

CREATE TABLE test_case_groups (
  slug     text COLLATE "C" PRIMARY KEY,
  name     text COLLATE "C" NOT NULL,
  summary  text COLLATE "C",
  cases    text COLLATE "C" NOT NULL,
  position integer NOT NULL
);

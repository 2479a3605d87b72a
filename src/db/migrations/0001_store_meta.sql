-- Markers about the store itself: the record format it was written with and the
-- catalogVersion of the last whole-catalog ingest.
CREATE TABLE store_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- One row per ingested (slug, version): where its current copy lives in the
-- definition store, and what it was built from. Swapping `store_dir` is how a
-- re-ingest replaces a version atomically.
CREATE TABLE test_case_versions (
  slug          TEXT NOT NULL,
  version       TEXT NOT NULL,
  record_format INTEGER NOT NULL,
  store_dir     TEXT NOT NULL,
  fingerprint   TEXT NOT NULL,
  content_hash  TEXT NOT NULL,
  experimental  INTEGER NOT NULL DEFAULT 0,
  ingested_at   TEXT NOT NULL,
  PRIMARY KEY (slug, version)
) STRICT;

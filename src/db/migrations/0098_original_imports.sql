-- upgrade: expand
-- Every `eval-backend import-original` that wrote: its source's fingerprint (SHA-256 over
-- the source's migration names, row counts and largest ids, so a rerun recognises its
-- source), when it ended, whether every table balanced, and the whole ledger as JSON.
CREATE TABLE original_imports (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  balanced INTEGER NOT NULL CHECK (balanced IN (0, 1)),
  report TEXT NOT NULL
);
CREATE INDEX original_imports_by_fingerprint ON original_imports (fingerprint, finished_at);

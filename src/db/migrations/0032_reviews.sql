-- One review per account per run; revisions are the public edit history (JSON array).
CREATE TABLE run_reviews (
  run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  reviewer_id  TEXT NOT NULL,
  reviewer     TEXT NOT NULL,
  username     TEXT NOT NULL,
  ratings      TEXT NOT NULL DEFAULT '[]',
  aesthetic    TEXT,
  writeup      TEXT NOT NULL,
  checklist    TEXT NOT NULL DEFAULT '[]',
  reviewed_at  TEXT NOT NULL,
  edited_at    TEXT,
  revisions    TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, reviewer_id)
) STRICT;

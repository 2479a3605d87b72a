-- PostgreSQL twin of migrations/0032_reviews.sql.
CREATE TABLE run_reviews (
  run_id       text COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  reviewer_id  text COLLATE "C" NOT NULL,
  reviewer     text COLLATE "C" NOT NULL,
  username     text COLLATE "C" NOT NULL,
  ratings      text COLLATE "C" NOT NULL DEFAULT '[]',
  aesthetic    text COLLATE "C",
  writeup      text COLLATE "C" NOT NULL,
  checklist    text COLLATE "C" NOT NULL DEFAULT '[]',
  reviewed_at  text COLLATE "C" NOT NULL,
  edited_at    text COLLATE "C",
  revisions    text COLLATE "C" NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, reviewer_id)
);

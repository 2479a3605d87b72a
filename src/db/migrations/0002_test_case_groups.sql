-- Test case groups of the last whole-catalog scan, in display order.
CREATE TABLE test_case_groups (
  slug     TEXT PRIMARY KEY,
  name     TEXT NOT NULL,
  summary  TEXT,
  cases    TEXT NOT NULL,     -- JSON array of member case slugs, authored order
  position INTEGER NOT NULL
) STRICT;

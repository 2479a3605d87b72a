-- Harness-cap revisions need a source no two concurrent writers share. SQLite writes one
-- statement at a time, so its upsert keeps taking MAX(revision) + 1 in the statement that
-- stores the cap; only PostgreSQL needs a sequence (see its twin). Nothing to change here.
SELECT 1;

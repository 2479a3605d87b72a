-- Orders cap writes: each PUT takes the next revision in the same statement that stores
-- the cap, and Redis applies a cap only when its revision is not older than the one it
-- holds, so concurrent PUTs (in one process or several) leave both stores agreeing.
ALTER TABLE harness_config ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

-- PostgreSQL twin of migrations/0080_in_flight_by_finish.sql: the in-flight indexes key on
-- `finished_at IS NULL` instead of naming the states.
UPDATE jobs SET finished_at = NULL
  WHERE state IN ('queued', 'pending', 'dispatched', 'starting', 'running') AND finished_at IS NOT NULL;
UPDATE jobs SET finished_at = COALESCE(started_at, dispatched_at, enqueued_at)
  WHERE state IN ('succeeded', 'failed', 'canceled') AND finished_at IS NULL;

DROP INDEX jobs_in_flight;
DROP INDEX jobs_in_flight_cell;
DROP INDEX jobs_origin_in_flight;
CREATE INDEX jobs_in_flight ON jobs (seq) WHERE finished_at IS NULL;
CREATE INDEX jobs_in_flight_cell ON jobs (test_case_slug, test_case_version, variant, harness_slug, model_id)
  WHERE finished_at IS NULL;
CREATE INDEX jobs_origin_in_flight ON jobs (origin, seq) WHERE origin IS NOT NULL AND finished_at IS NULL;

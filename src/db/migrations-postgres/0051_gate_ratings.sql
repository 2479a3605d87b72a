-- PostgreSQL twin of migrations/0051_gate_ratings.sql. The SQLite file's re-lift of
-- validation_loaded from the summary card has no twin (no store here predates the column);
-- the regrade mark is plain SQL and kept.
ALTER TABLE runs ADD COLUMN validation_loaded integer NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN validator_rating_rank integer;
ALTER TABLE run_reviews ADD COLUMN rating_rank integer;

UPDATE runs SET grade_key = NULL WHERE review_count > 0 OR validator_rated = 1;

CREATE INDEX runs_gate_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, id, gg_config_id, job_id,
  test_type, validation_loaded, validator_rating_rank, state, decode_error) WHERE state = 'completed' AND decode_error IS NULL;

CREATE INDEX run_reviews_gate ON run_reviews (run_id, reviewer_id, rating_rank);

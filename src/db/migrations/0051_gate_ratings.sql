-- What a ladder's gate reads per run and per account, kept beside the run's grade:
-- whether the build loaded, the validators' own rating of a validator-rated run, and each
-- review's functional rating (a legacy review's worst domain, a validator-rated review's
-- checklist laid over the validators'). Ranks as rating_rank: 0 broken .. 4 flawless.
ALTER TABLE runs ADD COLUMN validation_loaded INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN validator_rating_rank INTEGER;
ALTER TABLE run_reviews ADD COLUMN rating_rank INTEGER;

UPDATE runs SET validation_loaded = COALESCE(json_extract(summary, '$.validationLoaded'), 1) WHERE summary IS NOT NULL;
-- Rated runs are regraded (which fills the ranks) the next time the app boots.
UPDATE runs SET grade_key = NULL WHERE review_count > 0 OR validator_rated = 1;

-- The gate's evidence for a ladder's cells (src/ladders/gate-evidence.ts), read from the index
-- alone: the new columns sit after the wide record, so a table read would walk its pages. The
-- partial index's own conditions are columns too, since the query restates them.
CREATE INDEX runs_gate_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, id, gg_config_id, job_id,
  test_type, validation_loaded, validator_rating_rank, state, decode_error) WHERE state = 'completed' AND decode_error IS NULL;

-- The requester's review's rating per run, read from the index: the review rows are wide.
CREATE INDEX run_reviews_gate ON run_reviews (run_id, reviewer_id, rating_rank);

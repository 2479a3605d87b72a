-- PostgreSQL twin of migrations/0031_run_listing_indexes.sql.
CREATE INDEX runs_published_order ON runs (published_at, id) WHERE published = 1 AND decode_error IS NULL;
CREATE INDEX runs_finished_order ON runs (finished_at, id) WHERE decode_error IS NULL;
CREATE INDEX runs_state_order ON runs (state, finished_at, id) WHERE decode_error IS NULL;
CREATE INDEX runs_model_order ON runs (model_id, published, finished_at, id) WHERE decode_error IS NULL;
CREATE INDEX runs_case_order ON runs (test_case_slug, published, finished_at, id) WHERE decode_error IS NULL;
CREATE INDEX runs_harness_order ON runs (harness, published, finished_at, id) WHERE decode_error IS NULL;
CREATE INDEX runs_unreadable ON runs (finished_at, id) WHERE decode_error IS NOT NULL;
CREATE INDEX runs_finished_week ON runs (finished_at);

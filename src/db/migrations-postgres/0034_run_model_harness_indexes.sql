-- PostgreSQL twin of migrations/0034_run_model_harness_indexes.sql.
CREATE INDEX runs_model_harness_cost ON runs (model_id, harness, published, cost, id, decode_error) WHERE decode_error IS NULL;
CREATE INDEX runs_model_harness_published_order ON runs (model_id, harness, published_at, id) WHERE published = 1 AND decode_error IS NULL;

-- PostgreSQL twin of migrations/0092_run_listing_null_order.sql. A PostgreSQL index keeps
-- NULLs last in ascending order, SQLite's first; the listings order by `<key> DESC NULLS
-- LAST, id DESC` (and ascending dates NULLS FIRST), which a backward (forward) scan reads in
-- order only when the key's NULLs come first. Without it every page sorted its whole filter.
DROP INDEX runs_published_order;
DROP INDEX runs_finished_order;
DROP INDEX runs_state_order;
DROP INDEX runs_model_order;
DROP INDEX runs_case_order;
DROP INDEX runs_harness_order;
DROP INDEX runs_unreadable;
DROP INDEX runs_model_harness_cost;
DROP INDEX runs_model_harness_published_order;
CREATE INDEX runs_published_order ON runs (published_at NULLS FIRST, id) WHERE published = 1 AND decode_error IS NULL;
CREATE INDEX runs_finished_order ON runs (finished_at NULLS FIRST, id) WHERE decode_error IS NULL;
CREATE INDEX runs_state_order ON runs (state, finished_at NULLS FIRST, id) WHERE decode_error IS NULL;
CREATE INDEX runs_model_order ON runs (model_id, published, finished_at NULLS FIRST, id) WHERE decode_error IS NULL;
CREATE INDEX runs_case_order ON runs (test_case_slug, published, finished_at NULLS FIRST, id) WHERE decode_error IS NULL;
CREATE INDEX runs_harness_order ON runs (harness, published, finished_at NULLS FIRST, id) WHERE decode_error IS NULL;
CREATE INDEX runs_unreadable ON runs (finished_at NULLS FIRST, id) WHERE decode_error IS NOT NULL;
CREATE INDEX runs_model_harness_cost ON runs (model_id, harness, published, cost NULLS FIRST, id, decode_error) WHERE decode_error IS NULL;
CREATE INDEX runs_model_harness_published_order ON runs (model_id, harness, published_at NULLS FIRST, id) WHERE published = 1 AND decode_error IS NULL;

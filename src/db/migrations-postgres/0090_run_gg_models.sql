-- PostgreSQL twin of migrations/0090_run_gg_models.sql. The SQLite file also fills the new
-- column for stored gg runs (and older gg jobs) from their recorded capability sets; that has
-- no twin: a PostgreSQL store is created by this build or copied from an up-to-date SQLite
-- store, whose rows already carry their bindings.
ALTER TABLE runs ADD COLUMN gg_models text COLLATE "C";

DROP INDEX runs_cell;
CREATE INDEX runs_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, finished_at, id, test_type, gg_config_id, job_id, gg_models)
  WHERE state = 'completed' AND decode_error IS NULL;
DROP INDEX runs_gate_cell;
CREATE INDEX runs_gate_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, id, gg_config_id, job_id, gg_models,
  test_type, validation_loaded, validator_rating_rank, state, decode_error) WHERE state = 'completed' AND decode_error IS NULL;

-- PostgreSQL twin of migrations/0081_runs_cell_by_finish.sql.
DROP INDEX runs_cell;
CREATE INDEX runs_cell ON runs (test_case_slug, test_case_version, variant, engine, harness, model_id, finished_at, id, test_type, gg_config_id, job_id)
  WHERE state = 'completed' AND decode_error IS NULL;

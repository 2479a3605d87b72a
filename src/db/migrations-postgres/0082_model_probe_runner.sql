-- PostgreSQL twin of migrations/0082_model_probe_runner.sql.
ALTER TABLE model_probes ADD COLUMN runner text COLLATE "C";

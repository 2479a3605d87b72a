-- PostgreSQL twin of migrations/0070_harness_config_revision.sql.
ALTER TABLE harness_config ADD COLUMN revision bigint NOT NULL DEFAULT 0;

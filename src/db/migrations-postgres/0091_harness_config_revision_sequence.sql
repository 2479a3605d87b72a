-- PostgreSQL twin of migrations/0091_harness_config_revision_sequence.sql: harness-cap
-- revisions come from a sequence, as a MAX(revision) + 1 in two concurrent transactions
-- reads the same committed rows and gives both writers one revision. It continues after
-- the revisions already stored.
CREATE SEQUENCE harness_config_revision AS bigint;
SELECT setval('harness_config_revision', COALESCE((SELECT MAX(revision) FROM harness_config), 0) + 1, false);

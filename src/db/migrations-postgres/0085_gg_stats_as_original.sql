-- PostgreSQL twin of migrations/0085_gg_stats_as_original.sql. The SQLite file also lifts the
-- gg statistics of runs stored before it again; that has no twin: a PostgreSQL store is
-- created by this build or copied from an up-to-date SQLite store, so every run here was
-- lifted the current way when stored.
ALTER TABLE run_gg_stats ADD COLUMN sole_model text COLLATE "C";
ALTER TABLE run_gg_stats ADD COLUMN errors_total bigint;

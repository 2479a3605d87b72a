-- PostgreSQL twin of migrations/0086_run_engine_slug.sql, which only lifts the engine and gg
-- configuration name of runs stored before it again. Nothing to do here: a PostgreSQL store
-- is created by this build or copied from an up-to-date SQLite store.
SELECT 1;

-- PostgreSQL twin of migrations/0071_run_times_utc.sql, which only rewrites the lifted times
-- of runs stored before it as UTC instants. Nothing to do here: a PostgreSQL store is created
-- by this build or copied from an up-to-date SQLite store, so its times are already UTC.
SELECT 1;

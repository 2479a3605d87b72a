-- PostgreSQL twin of migrations/0087_gg_cell_models.sql. The SQLite file also fills the
-- column for older gg jobs from their launch request; that has no twin: a PostgreSQL store is
-- created by this build or copied from an up-to-date SQLite store.
ALTER TABLE jobs ADD COLUMN gg_models text COLLATE "C";

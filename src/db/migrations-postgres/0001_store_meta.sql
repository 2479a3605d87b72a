-- PostgreSQL twin of migrations/0001_store_meta.sql. Conventions of every file here: each
-- one mirrors the SQLite migration of the same number and name; text is COLLATE "C" (byte
-- order, as SQLite compares); INTEGER is bigint where a value can pass 2^31 (ids, counts,
-- sizes, epoch ms) and integer for flags and ranks (0/1 flags stay integers, so the queries
-- are shared); REAL is double precision; JSON stays text, kept as sent.
CREATE TABLE store_meta (
  key   text COLLATE "C" PRIMARY KEY,
  value text COLLATE "C" NOT NULL
);

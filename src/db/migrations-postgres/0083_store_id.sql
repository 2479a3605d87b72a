-- PostgreSQL twin of migrations/0083_store_id.sql: the store's identity, 32 lower-case hex
-- digits like SQLite's lower(hex(randomblob(16))). gen_random_uuid is built in since PostgreSQL 13.
INSERT INTO store_meta (key, value) VALUES ('store_id', replace(gen_random_uuid()::text, '-', ''));

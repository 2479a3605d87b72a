-- PostgreSQL twin of ../migrations/0001_accounts.sql (same number and name; text is
-- COLLATE "C", byte order as on SQLite). SQLite's `UNIQUE COLLATE NOCASE` on usernames is a
-- unique index on lower(username) here: usernames are ASCII (schemas.ts), and lower() over
-- COLLATE "C" folds ASCII only, as NOCASE does. Lookups go through the dialect's
-- `sameTextIgnoringCase`, which this index serves.
CREATE TABLE accounts (
  id            text COLLATE "C" PRIMARY KEY,
  username      text COLLATE "C" NOT NULL,
  display_name  text COLLATE "C" NOT NULL,
  password_hash text COLLATE "C" NOT NULL,
  created_at    text COLLATE "C" NOT NULL
);

CREATE UNIQUE INDEX accounts_username ON accounts (lower(username));

-- Only a SHA-256 of each token is kept: a leaked database grants no sessions.
CREATE TABLE tokens (
  token_hash text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C"
);

CREATE INDEX tokens_account ON tokens (account_id);

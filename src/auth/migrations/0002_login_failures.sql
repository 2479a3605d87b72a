-- Failed-login counters of the login throttle (rate-limiter-flexible's SQLite layout):
-- `key` is `<limiter>:<subject>`, `points` the failures counted in the window that
-- ends at `expire` (ms since the epoch). Kept here so a restart forgets no failure.
CREATE TABLE login_failures (
  key    TEXT PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire INTEGER
);

-- PostgreSQL twin of ../migrations/0002_login_failures.sql: the login throttle's counters,
-- `key` `<limiter>:<subject>`, `points` the failures counted in the window ending at `expire`
-- (ms since the epoch, hence bigint).
CREATE TABLE login_failures (
  key    text COLLATE "C" PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- One storage shape for how every schedule owner is fed: a plan's schedule and a ladder's
-- lived in their own tables, the buffer override as two columns on one and a JSON text on
-- the other. They move here, keyed by the owner's origin (`plan:<id>`, `ladder:<id>`,
-- what its jobs record), and leave the owners' tables. A bound above 500 (the most a
-- target may say now) is read as 500.
CREATE TABLE coverage_schedules (
  owner        TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL,
  outer_axis   TEXT NOT NULL CHECK (outer_axis IN ('case', 'combination', 'rung')),
  paused       INTEGER NOT NULL,
  auto_top_up  INTEGER NOT NULL,
  -- NULL kind: inherit the account's setting.
  buffer_kind  TEXT CHECK (buffer_kind IN ('bounded', 'unbounded')),
  buffer_runs  INTEGER CHECK (buffer_runs IS NULL OR buffer_runs BETWEEN 0 AND 500),
  updated_at   TEXT NOT NULL
) STRICT;

INSERT INTO coverage_schedules (owner, account_id, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, updated_at)
SELECT 'plan:' || id, account_id, outer_axis, paused, auto_top_up, buffer_kind,
  CASE WHEN buffer_kind = 'bounded' THEN MIN(MAX(COALESCE(buffer_runs, 0), 0), 500) END, updated_at
FROM coverage_plans;

INSERT INTO coverage_schedules (owner, account_id, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, updated_at)
SELECT 'ladder:' || id, account_id, outer_axis, paused, auto_top_up, buffer_target ->> '$.kind',
  CASE WHEN buffer_target ->> '$.kind' = 'bounded' THEN MIN(MAX(COALESCE(buffer_target ->> '$.runs', 0), 0), 500) END, updated_at
FROM ladders;

ALTER TABLE coverage_plans DROP COLUMN outer_axis;
ALTER TABLE coverage_plans DROP COLUMN paused;
ALTER TABLE coverage_plans DROP COLUMN auto_top_up;
ALTER TABLE coverage_plans DROP COLUMN buffer_kind;
ALTER TABLE coverage_plans DROP COLUMN buffer_runs;
ALTER TABLE ladders DROP COLUMN outer_axis;
ALTER TABLE ladders DROP COLUMN paused;
ALTER TABLE ladders DROP COLUMN auto_top_up;
ALTER TABLE ladders DROP COLUMN buffer_target;

-- A schedule goes with its owner.
CREATE TRIGGER coverage_plans_schedule_gone AFTER DELETE ON coverage_plans
BEGIN DELETE FROM coverage_schedules WHERE owner = 'plan:' || OLD.id; END;
CREATE TRIGGER ladders_schedule_gone AFTER DELETE ON ladders
BEGIN DELETE FROM coverage_schedules WHERE owner = 'ladder:' || OLD.id; END;

-- The account's buffer setting: a bound above 500 is read as 500 here too.
UPDATE coverage_settings SET buffer_runs = 500 WHERE buffer_kind = 'bounded' AND buffer_runs > 500;

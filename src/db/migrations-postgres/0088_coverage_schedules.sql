-- PostgreSQL twin of migrations/0088_coverage_schedules.sql. The schedules move out of their
-- owners' tables here too, with the same statements spelled for PostgreSQL (LEAST/GREATEST
-- for SQLite's two-argument MIN/MAX), so no row is lost whatever the store holds.
CREATE TABLE coverage_schedules (
  owner        text COLLATE "C" PRIMARY KEY,
  account_id   text COLLATE "C" NOT NULL,
  outer_axis   text COLLATE "C" NOT NULL CHECK (outer_axis IN ('case', 'combination', 'rung')),
  paused       integer NOT NULL,
  auto_top_up  integer NOT NULL,
  buffer_kind  text COLLATE "C" CHECK (buffer_kind IN ('bounded', 'unbounded')),
  buffer_runs  integer CHECK (buffer_runs IS NULL OR buffer_runs BETWEEN 0 AND 500),
  updated_at   text COLLATE "C" NOT NULL
);

INSERT INTO coverage_schedules (owner, account_id, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, updated_at)
SELECT 'plan:' || id, account_id, outer_axis, paused, auto_top_up, buffer_kind,
  CASE WHEN buffer_kind = 'bounded' THEN LEAST(GREATEST(COALESCE(buffer_runs, 0), 0), 500) END, updated_at
FROM coverage_plans;

INSERT INTO coverage_schedules (owner, account_id, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, updated_at)
SELECT 'ladder:' || id, account_id, outer_axis, paused, auto_top_up, buffer_target::jsonb ->> 'kind',
  CASE WHEN buffer_target::jsonb ->> 'kind' = 'bounded'
    THEN LEAST(GREATEST(COALESCE((buffer_target::jsonb ->> 'runs')::numeric, 0), 0), 500) END, updated_at
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

-- A schedule goes with its owner: SQLite's triggers, as plpgsql trigger functions.
CREATE FUNCTION coverage_plans_schedule_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM coverage_schedules WHERE owner = 'plan:' || OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER coverage_plans_schedule_gone AFTER DELETE ON coverage_plans
  FOR EACH ROW EXECUTE FUNCTION coverage_plans_schedule_gone();

CREATE FUNCTION ladders_schedule_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM coverage_schedules WHERE owner = 'ladder:' || OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER ladders_schedule_gone AFTER DELETE ON ladders
  FOR EACH ROW EXECUTE FUNCTION ladders_schedule_gone();

UPDATE coverage_settings SET buffer_runs = 500 WHERE buffer_kind = 'bounded' AND buffer_runs > 500;

import { bufferTargetColumns, bufferTargetFromColumns, type BufferTarget } from '../coverage/buffer-target.js';
import type { Database } from './open-database.js';

/**
 * How a schedule owner (a coverage plan, a ladder) is fed; one shape for both, the axis
 * naming the owner's own outer loop (`case` or `combination` on a plan, `rung` or
 * `combination` on a ladder).
 */
export interface OwnerSchedule<Axis extends string = string> {
  outerAxis: Axis;
  paused: boolean;
  autoTopUp: boolean;
  /** Null inherits the account's setting. */
  bufferTarget: BufferTarget | null;
}

interface Row {
  outerAxis: string;
  paused: number;
  autoTopUp: number;
  bufferKind: string | null;
  bufferRuns: number | null;
}

/** The SQL that reads a schedule as `OwnerSchedule` columns from `coverage_schedules AS s`, for owners' own selects to join. */
export const SCHEDULE_COLUMNS = 's.outer_axis AS outerAxis, s.paused, s.auto_top_up AS autoTopUp, s.buffer_kind AS bufferKind, s.buffer_runs AS bufferRuns';

export const scheduleFromRow = <Axis extends string>(row: Row): OwnerSchedule<Axis> => ({
  outerAxis: row.outerAxis as Axis,
  paused: row.paused === 1,
  autoTopUp: row.autoTopUp === 1,
  bufferTarget: bufferTargetFromColumns(row.bufferKind, row.bufferRuns),
});

/**
 * `coverage_schedules`: every owner's schedule, keyed by its origin (`plan:<id>`,
 * `ladder:<id>`). A row goes when its owner does (migration 0088's triggers).
 */
export function coverageSchedulesTable(db: Database) {
  const one = db.prepare<[string], Row>(`SELECT ${SCHEDULE_COLUMNS} FROM coverage_schedules AS s WHERE s.owner = ?`);
  const upsert = db.prepare(
    `INSERT INTO coverage_schedules (owner, account_id, outer_axis, paused, auto_top_up, buffer_kind, buffer_runs, updated_at)
     VALUES (@owner, @accountId, @outerAxis, @paused, @autoTopUp, @bufferKind, @bufferRuns, @now)
     ON CONFLICT (owner) DO UPDATE SET outer_axis = excluded.outer_axis, paused = excluded.paused, auto_top_up = excluded.auto_top_up,
       buffer_kind = excluded.buffer_kind, buffer_runs = excluded.buffer_runs, updated_at = excluded.updated_at
     WHERE coverage_schedules.account_id = excluded.account_id`,
  );
  const pause = db.prepare<[number, string, string]>('UPDATE coverage_schedules SET paused = ?, updated_at = ? WHERE owner = ?');
  return {
    /** Null when the owner has no schedule (it is gone). */
    get(owner: string): OwnerSchedule | null {
      const row = one.get(owner);
      return row ? scheduleFromRow(row) : null;
    },
    /** Writes the owner's schedule whole (the caller has checked the owner is the account's). */
    put(owner: string, accountId: string, schedule: OwnerSchedule): void {
      upsert.run({
        owner, accountId, outerAxis: schedule.outerAxis, paused: schedule.paused ? 1 : 0, autoTopUp: schedule.autoTopUp ? 1 : 0,
        ...bufferTargetColumns(schedule.bufferTarget), now: new Date().toISOString(),
      });
    },
    /** Flips `paused` alone, so a halt's pause never rewrites a schedule written meanwhile; false when the owner is gone. */
    setPaused: (owner: string, paused: boolean): boolean => pause.run(paused ? 1 : 0, new Date().toISOString(), owner).changes > 0,
  };
}

export type CoverageSchedulesTable = ReturnType<typeof coverageSchedulesTable>;

import { sql, type RawBuilder } from 'kysely';
import { bufferTargetColumns, bufferTargetFromColumns, type BufferTarget } from '../coverage/buffer-target.js';
import type { BackendStore } from './dialect.js';

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

/** The fields one write changes; `bufferTarget` is always written (null inherits). */
export type ScheduleChange<Axis extends string = string> = Partial<Omit<OwnerSchedule<Axis>, 'bufferTarget'>> & Pick<OwnerSchedule<Axis>, 'bufferTarget'>;

interface Row {
  outerAxis: string;
  paused: number;
  autoTopUp: number;
  bufferKind: string | null;
  bufferRuns: number | null;
}

/** A schedule's columns as `OwnerSchedule` row fields from `coverage_schedules AS s`, for owners' own selects to join. */
export const SCHEDULE_COLUMNS = ['s.outer_axis as outerAxis', 's.paused', 's.auto_top_up as autoTopUp', 's.buffer_kind as bufferKind', 's.buffer_runs as bufferRuns'] as const;

/** The origin (`plan:<id>`) of the owner whose id column is `idColumn`: what `coverage_schedules.owner` joins on. */
export const ownerOf = (kind: 'plan' | 'ladder', idColumn: string): RawBuilder<string> => sql<string>`${sql.lit(`${kind}:`)} || ${sql.ref(idColumn)}`;

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
export function coverageSchedulesTable(store: BackendStore) {
  return {
    /** Null when the owner has no schedule (it is gone). */
    async get(owner: string): Promise<OwnerSchedule | null> {
      const row = await store.db.selectFrom('coverage_schedules as s').select(SCHEDULE_COLUMNS).where('s.owner', '=', owner).executeTakeFirst();
      return row ? scheduleFromRow(row) : null;
    },
    /**
     * Writes a new owner's schedule whole (the caller has checked the owner is the account's).
     * `db` is the transaction when the write belongs to one.
     */
    async put(owner: string, accountId: string, schedule: OwnerSchedule, db = store.db): Promise<void> {
      const { bufferKind, bufferRuns } = bufferTargetColumns(schedule.bufferTarget);
      const row = {
        outer_axis: schedule.outerAxis, paused: schedule.paused ? 1 : 0, auto_top_up: schedule.autoTopUp ? 1 : 0,
        buffer_kind: bufferKind, buffer_runs: bufferRuns, updated_at: new Date().toISOString(),
      };
      await db.insertInto('coverage_schedules').values({ owner, account_id: accountId, ...row })
        .onConflict((conflict) => conflict.column('owner')
          .doUpdateSet((eb) => ({
            outer_axis: eb.ref('excluded.outer_axis'), paused: eb.ref('excluded.paused'), auto_top_up: eb.ref('excluded.auto_top_up'),
            buffer_kind: eb.ref('excluded.buffer_kind'), buffer_runs: eb.ref('excluded.buffer_runs'), updated_at: eb.ref('excluded.updated_at'),
          }))
          // Another account's owner of the same origin is never overwritten.
          .where('coverage_schedules.account_id', '=', accountId))
        .execute();
    },
    /**
     * Writes only the columns `change` names, in one statement, on the account's own owner:
     * a read-merge-write of the whole row would put back a `paused` that a halt flipped in
     * between. False when the account has no such owner. `db` is the transaction when the
     * write belongs to one.
     */
    async change(owner: string, accountId: string, change: ScheduleChange, db = store.db): Promise<boolean> {
      const { bufferKind, bufferRuns } = bufferTargetColumns(change.bufferTarget);
      const result = await db.updateTable('coverage_schedules')
        .set({
          ...(change.outerAxis === undefined ? {} : { outer_axis: change.outerAxis }),
          ...(change.paused === undefined ? {} : { paused: change.paused ? 1 : 0 }),
          ...(change.autoTopUp === undefined ? {} : { auto_top_up: change.autoTopUp ? 1 : 0 }),
          buffer_kind: bufferKind, buffer_runs: bufferRuns, updated_at: new Date().toISOString(),
        })
        .where('owner', '=', owner).where('account_id', '=', accountId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    /** Flips `paused` alone, so a halt's pause never rewrites a schedule written meanwhile; false when the owner is gone. */
    async setPaused(owner: string, paused: boolean): Promise<boolean> {
      const result = await store.db.updateTable('coverage_schedules').set({ paused: paused ? 1 : 0, updated_at: new Date().toISOString() })
        .where('owner', '=', owner).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

export type CoverageSchedulesTable = ReturnType<typeof coverageSchedulesTable>;

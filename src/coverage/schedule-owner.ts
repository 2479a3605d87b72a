/**
 * Schedule owners: what coverage plans and ladders share about being fed. An owner is its
 * origin (`plan:<id>`, `ladder:<id>`: the lock its top-ups hold and what its jobs record),
 * its schedule (one storage shape, `coverage_schedules`) and its cells: those a top-up may
 * feed, and those whose runs the review buffer and the review queue cover (a plan's are the
 * same cells; a ladder feeds current rungs and covers every rung reached).
 *
 * Buffer accounting follows the original system (crates/backend/src/coverage/schedule.rs
 * `top_up`, `outstanding_across`): occupancy is the in-flight jobs of the covered cells,
 * whatever launched them, plus their completed runs the requester has not reviewed, each
 * cell counted once however many members or rungs name it.
 *
 * This module holds the owner's shapes and its schedule; the walk that chooses cells is in
 * `top-up-walk.ts`, the actions under the owner's lock (top-up, halt, pause) in
 * `owner-actions.ts`, the review queue in `owner-queue.ts`.
 */
import type { CoverageSchedulesTable, OwnerSchedule, ScheduleChange } from '../db/coverage-schedules-table.js';
import type { CoverageSettingsTable } from '../db/coverage-settings-table.js';
import { notFound } from '../errors.js';
import type { JobsContext } from '../jobs/jobs-context.js';
import type { ScheduleLocks } from '../queue/schedule-lock.js';
import { bufferTargetOf, targetInForce, type BufferTarget } from './buffer-target.js';
import type { CellCounter, CellCounts } from './cell-counts.js';
import { cellKeyOf, uniqueBy, type CoverageCell } from './coverage-cells.js';

/** The machinery every owner shares (the coverage context carries it). */
export interface OwnerContext {
  jobs: JobsContext;
  locks: ScheduleLocks;
  counter: CellCounter;
  schedules: CoverageSchedulesTable;
  settings: CoverageSettingsTable;
}

/** One cell of an owner with its counts, why it cannot be launched (known before trying), and its rung on a ladder. */
export interface OwnedCell {
  cell: CoverageCell;
  counts: CellCounts;
  unlaunchable: string | null;
  rungId?: string;
}

/** An owner measured for the requester: cells in emission order. */
export interface MeasuredOwner {
  /** The cells a top-up may launch. */
  feed: OwnedCell[];
  /** The cells whose runs the buffer and the queue cover, each cell once (`uniqueCells`). */
  review: OwnedCell[];
}

export interface ScheduleOwner {
  accountId: string;
  origin: string;
  /** Counts its cells afresh; a top-up calls it under the owner's lock. */
  measure(): Promise<MeasuredOwner>;
}

/** The cells in order, each cell once (the first member or rung naming it keeps it). */
export const uniqueCells = <T extends { cell: CoverageCell }>(cells: T[]): T[] => uniqueBy(cells, (item) => cellKeyOf(item.cell));

/** In-flight jobs plus unreviewed completed runs over the covered cells. */
export const occupancyOf = (review: OwnedCell[]): number =>
  review.reduce((sum, { counts }) => sum + counts.inFlight + counts.unreviewed, 0);

export const remainingOf = (cell: CoverageCell, counts: CellCounts) => Math.max(0, cell.desired - counts.completed - counts.inFlight);

/** The 404 for an owner that is gone, naming it by `noun` and its id. */
export const ownerGone = (origin: string, noun: string) => notFound(`No ${noun} ${origin.slice(origin.indexOf(':') + 1)}.`);

/** The owner's schedule as stored; 404 naming `noun` when it is gone. */
export async function scheduleOf(ctx: OwnerContext, origin: string, noun: string): Promise<OwnerSchedule> {
  const schedule = await ctx.schedules.get(origin);
  if (!schedule) throw ownerGone(origin, noun);
  return schedule;
}

/** The target in force: the owner's override, else the account's setting, else the default. */
export const targetOf = async (ctx: OwnerContext, accountId: string, schedule: OwnerSchedule): Promise<BufferTarget> =>
  targetInForce(schedule.bufferTarget, schedule.bufferTarget === null ? await ctx.settings.bufferTarget(accountId) : null);

/** A schedule as written: the tagged target, a bare bound (a ladder's shorthand), or null. */
export interface ScheduleWrite<Axis extends string> {
  outerAxis?: Axis;
  paused?: boolean;
  autoTopUp?: boolean;
  bufferTarget?: { kind: string; runs?: number } | number | null;
}

/**
 * What a schedule write changes: only the fields it gives (`outerAxis`, `paused`,
 * `autoTopUp`), and always `bufferTarget`, which absent or null inherits (clears the
 * override), as the original's whole-schedule write does. Written as it is, column by
 * column, so a halt's pause landing between a caller's read and its write is never undone
 * by a write that did not name `paused`. `field` names the body in a 400.
 */
export function scheduleChange<Axis extends string>(body: ScheduleWrite<Axis>, field: string): ScheduleChange<Axis> {
  const target = body.bufferTarget ?? null;
  return {
    ...(body.outerAxis === undefined ? {} : { outerAxis: body.outerAxis }),
    ...(body.paused === undefined ? {} : { paused: body.paused }),
    ...(body.autoTopUp === undefined ? {} : { autoTopUp: body.autoTopUp }),
    bufferTarget: target === null ? null : bufferTargetOf(typeof target === 'number' ? { kind: 'bounded', runs: target } : target, `${field}.bufferTarget`),
  };
}

/** A schedule write over a new owner's defaults (`scheduleChange` for one that exists). */
export const mergeSchedule = <Axis extends string>(base: OwnerSchedule<Axis>, body: ScheduleWrite<Axis>, field: string): OwnerSchedule<Axis> =>
  ({ ...base, ...scheduleChange(body, field) });

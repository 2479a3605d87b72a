/**
 * Schedule owners: what coverage plans and ladders share about being fed, in one place. An
 * owner is its origin (`plan:<id>`, `ladder:<id>`: the lock its top-ups hold and what its jobs
 * record), its schedule (one storage shape, `coverage_schedules`) and its cells: those a
 * top-up may feed, and those whose runs the review buffer and the review queue cover (a plan's
 * are the same cells; a ladder feeds current rungs and covers every rung reached).
 *
 * Buffer accounting follows the original system (crates/backend/src/coverage/schedule.rs
 * `top_up`, `outstanding_across`): occupancy is the in-flight jobs of the covered cells,
 * whatever launched them, plus their completed runs the requester has not reviewed, each
 * cell counted once however many members or rungs name it. A top-up walks the feedable cells
 * in order and launches whole cells while occupancy is below the target; the cell that
 * crosses it may overshoot (a cell is never split). The walk makes two passes: the first
 * takes only cells whose harness has a free parallelism slot (its jobs in flight, from any
 * origin and from this walk, below its cap), the second the cells the first deferred, in
 * order; so a capped harness never soaks up the buffer while the others sit idle.
 *
 * Crash safety: every launch of one top-up is written to SQLite in one transaction
 * (`enqueuePrepared`) before anything reaches Redis, so no cell is ever half launched and
 * the next top-up counts what was committed as in flight.
 *
 * A halt wins over a top-up: it pauses first; the top-up reads the pause every
 * `FED_CHECK_INTERVAL_MS` of its walk and right before it commits, and stops; the halt then
 * cancels under the lock, and if a top-up stalled past the wait it cancels at once and again
 * once that top-up lets go.
 */
import type { LaunchBodyT } from '../contract/jobs.js';
import { MAX_QUEUE_RUNS } from '../contract/vocabulary.js';
import type { CoverageSchedulesTable, OwnerSchedule, ScheduleChange } from '../db/coverage-schedules-table.js';
import type { CoverageSettingsTable } from '../db/coverage-settings-table.js';
import { HttpError, notFound } from '../errors.js';
import { recordCancel, SWEEP_STEP } from '../jobs/cancel-jobs.js';
import { enqueuePrepared, prepareLaunch, type PreparedLaunch } from '../jobs/enqueue-runs.js';
import type { JobsContext } from '../jobs/jobs-context.js';
import type { ScheduleLocks } from '../queue/schedule-lock.js';
import { MILLISECOND, SECOND } from '../time.js';
import { bufferTargetOf, hasRoom, targetInForce, type BufferTarget } from './buffer-target.js';
import type { CellCounter, CellCounts, HarnessLoad } from './cell-counts.js';
import { cellKeyOf, cellRef, ggRef, uniqueBy, type CoverageCell } from './coverage-cells.js';

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
const ownerGone = (origin: string, noun: string) => notFound(`No ${noun} ${origin.slice(origin.indexOf(':') + 1)}.`);

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

/** `POST …/pause`: flips `paused` alone; cancels nothing, launches nothing. */
export async function pauseOwner(ctx: OwnerContext, origin: string, noun: string, paused: boolean): Promise<void> {
  if (!(await ctx.schedules.setPaused(origin, paused))) throw ownerGone(origin, noun);
}

type CellAnswer = ReturnType<typeof cellRef> & { rungId?: string };

/** What a top-up did, in the console's names (the original's `TopUpResult`). */
export interface TopUpResult {
  bufferTarget: BufferTarget;
  /** The occupancy the walk started from; absent when it never ran. */
  outstanding?: number;
  enqueued: number;
  cells: Array<CellAnswer & { runs: number; jobIds: string[] }>;
  unlaunchable: Array<CellAnswer & { reason: string }>;
  skipped?: 'busy' | 'paused';
}

const answerOf = ({ cell, rungId }: OwnedCell): CellAnswer => ({ ...(rungId === undefined ? {} : { rungId }), ...cellRef(cell) });

/** The launch body of one run of a cell, on the cell's engine, with the model its harness launches. */
function launchBody({ pin, combination }: CoverageCell): LaunchBodyT {
  return {
    testCase: pin.slug,
    version: pin.version,
    variant: pin.variant,
    harness: combination.harness,
    model: combination.launchModel,
    engine: pin.engine === 'none' ? null : pin.engine,
    ...(combination.provider ? { provider: combination.provider } : {}),
    ...(combination.gg ? { presetId: combination.gg.configId } : {}),
  };
}

/**
 * How long a top-up's walk goes between asking whether its owner is still fed. The caller
 * asks once more right before it commits, so this only bounds how long a halt waits for a
 * walk to give up: a walk held up by a slow cell (a price fetched from the routing provider)
 * asks after that cell; one that prepares hundreds of cells in a few milliseconds does not
 * ask the store once per cell (500 reads, most of a top-up's time on PostgreSQL).
 */
const FED_CHECK_INTERVAL_MS = 50 * MILLISECOND;

/**
 * Chooses and prepares the cells to launch; nothing is written. Every feedable cell whose
 * member cannot be launched and still misses runs is reported, whatever the buffer (a bound of
 * 0 included). `stillFed` is asked before a cell once `FED_CHECK_INTERVAL_MS` has passed since
 * the walk started or last asked: false (a halt paused the owner) stops the walk, and the
 * answer is null. `harnesses` is the capped harnesses' load (none: no caps).
 */
export async function prepareTopUp(
  ctx: JobsContext, accountId: string, origin: string, target: BufferTarget, measured: MeasuredOwner, stillFed: () => Promise<boolean>,
  harnesses: HarnessLoad = new Map(),
) {
  const outstanding = occupancyOf(measured.review);
  const unlaunchable: TopUpResult['unlaunchable'] = [];
  for (const owned of measured.feed) {
    if (owned.unlaunchable !== null && remainingOf(owned.cell, owned.counts) > 0) unlaunchable.push({ ...answerOf(owned), reason: owned.unlaunchable });
  }
  const admissions = new Map<string, ReturnType<JobsContext['models']['admit']>>();
  const chosen: Array<{ owned: OwnedCell; launches: PreparedLaunch[] }> = [];
  let occupancy = outstanding;
  // A copy: what this walk launches fills its harness's slots for the rest of the walk.
  const load = new Map([...harnesses].map(([slug, { cap, inFlight }]) => [slug, { cap, inFlight }]));
  const cells = uniqueCells(measured.feed);
  const tried = new Set<OwnedCell>();
  let askedAt = performance.now();
  for (const slotsOnly of [true, false]) {
    for (const owned of cells) {
      if (!hasRoom(target, occupancy)) break;
      const remaining = remainingOf(owned.cell, owned.counts);
      if (remaining === 0 || owned.unlaunchable !== null || tried.has(owned)) continue;
      const harness = load.get(owned.cell.combination.harness);
      if (slotsOnly && harness !== undefined && harness.inFlight >= harness.cap) continue;
      tried.add(owned);
      if (performance.now() - askedAt >= FED_CHECK_INTERVAL_MS) {
        if (!(await stillFed())) return null;
        askedAt = performance.now();
      }
      const body = launchBody(owned.cell);
      const launches: PreparedLaunch[] = [];
      try {
        for (let i = 0; i < remaining; i++) {
          launches.push(await prepareLaunch(ctx, accountId, body, { origin }, admissions, owned.cell.combination.gg ?? undefined));
        }
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        unlaunchable.push({ ...answerOf(owned), reason: error.message });
        continue;
      }
      chosen.push({ owned, launches });
      occupancy += remaining;
      if (harness !== undefined) harness.inFlight += remaining;
    }
  }
  return { outstanding, chosen, unlaunchable };
}

/**
 * `POST …/topup`: serialized per owner across processes (`skipped: 'busy'` while another
 * holds its lock, `'paused'` for a paused owner). Under the lock the owner is measured again,
 * so a pause or a halt that landed meanwhile is honoured and the shortfall recomputed.
 *
 * A review's follow-up (`followUp`) that finds the lock busy is not dropped: it leaves a mark,
 * and whichever top-up holds the lock measures and tops up again before it lets go, for as
 * long as it finds a mark (two reviews close together both refill a small buffer). The
 * holder answers with its first round; later rounds are on behalf of the follow-ups.
 */
export async function topUpOwner(ctx: OwnerContext, owner: ScheduleOwner, noun: string, { followUp = false } = {}): Promise<TopUpResult> {
  const paused = async () => (await scheduleOf(ctx, owner.origin, noun)).paused;
  const skip = async (skipped: 'busy' | 'paused'): Promise<TopUpResult> => ({
    bufferTarget: await targetOf(ctx, owner.accountId, await scheduleOf(ctx, owner.origin, noun)), enqueued: 0, cells: [], unlaunchable: [], skipped,
  });
  if (await paused()) return skip('paused');
  const attempt = await ctx.locks.withLock(owner.origin, async (lock) => {
    const schedule = await scheduleOf(ctx, owner.origin, noun);
    if (schedule.paused) return skip('paused');
    const target = await targetOf(ctx, owner.accountId, schedule);
    const prepared = await prepareTopUp(
      ctx.jobs, owner.accountId, owner.origin, target, await owner.measure(), async () => !(await paused()), await ctx.counter.harnessLoad(),
    );
    if (!prepared) return skip('paused');
    const launches = prepared.chosen.flatMap((item) => item.launches);
    if (launches.length > 0) await lock.confirm();
    // Read right before the commit, with no wait between it and the insert: a halt that paused
    // the owner by now finds nothing new; one that pauses later waits for this lock and sweeps.
    if (launches.length > 0 && (await paused())) return skip('paused');
    const ids = await enqueuePrepared(ctx.jobs, launches, owner.origin);
    let next = 0;
    const cells = prepared.chosen.map(({ owned, launches: own }) => ({ ...answerOf(owned), runs: own.length, jobIds: ids.slice(next, (next += own.length)) }));
    return { bufferTarget: target, outstanding: prepared.outstanding, enqueued: ids.length, cells, unlaunchable: prepared.unlaunchable };
  }, {
    markWhenBusy: followUp,
    repeatWhileMarked: true,
    onRepeatError: (error) => ctx.jobs.log.warn({ err: error, origin: owner.origin }, 'a top-up again on behalf of a review failed'),
  });
  return attempt.held ? attempt.value : skip('busy');
}

/** `waiting` reaches queued and pending jobs; `all` also dispatched, starting and running ones. */
export type HaltScope = 'waiting' | 'all';

/** Cancels the non-terminal jobs launched for one owner, in bounded steps, recorded and announced like every cancel. */
async function cancelOrigin(ctx: OwnerContext, origin: string, scope: HaltScope, detail: string): Promise<number> {
  const ids = await ctx.counter.inFlightIdsOfOrigin(origin);
  let canceled = 0;
  for (let i = 0; i < ids.length; i += SWEEP_STEP) {
    const result = await ctx.jobs.queue.cancel(scope === 'all' ? 'any' : 'waiting', detail, { ids: ids.slice(i, i + SWEEP_STEP) });
    await recordCancel(ctx.jobs, result, detail);
    canceled += result.canceled.length;
  }
  return canceled;
}

/** How long a halt waits for a top-up in progress to notice the pause and let go of the lock. */
const HALT_LOCK_WAIT_MS = 35 * SECOND;

/**
 * `halt` and `halt-all`: pause first, so the top-up in progress stops at its next step and no
 * new one starts; then cancel the owner's jobs under its lock. A top-up stalled in one step
 * past the wait is not waited for: its jobs are canceled now, and whatever it commits is
 * canceled once it lets go (a dead holder's claim expires after one lock TTL). Jobs of any
 * other origin are never touched.
 */
export async function haltOwner(ctx: OwnerContext, origin: string, noun: string, scope: HaltScope, by: string) {
  await pauseOwner(ctx, origin, noun, true);
  const detail = `Canceled by ${by} (${scope === 'all' ? 'halt-all' : 'halt'} of ${origin}).`;
  const halt = () => cancelOrigin(ctx, origin, scope, detail);
  let canceled = 0;
  // Twice at most: a top-up that resumes after the pause stops before its commit, so only one
  // caught between its last check and its insert can add jobs after the first sweep.
  for (let round = 0; round < 2; round++) {
    const attempt = await ctx.locks.withLock(origin, halt, { waitMs: HALT_LOCK_WAIT_MS });
    if (attempt.held) return { canceled: canceled + attempt.value, includedActive: scope === 'all' };
    canceled += await halt();
  }
  return { canceled, includedActive: scope === 'all' };
}


/**
 * `GET …/queue`: the requester's unreviewed completed runs of the covered cells, cell by cell
 * in emission order (each cell once, so each run once), oldest first within a cell, at most
 * `limit`, with `truncated` when more wait. `skipUnloaded` leaves out unloaded builds a
 * ladder's gate already rated broken.
 */
export async function ownerQueue(
  ctx: OwnerContext, review: Array<Pick<OwnedCell, 'cell' | 'rungId'>>, reviewerId: string, limit = MAX_QUEUE_RUNS, skipUnloaded = false,
) {
  const cells = uniqueCells(review);
  const rows = await ctx.counter.unreviewedRuns(cells.map((owned) => owned.cell), reviewerId, limit + 1, skipUnloaded);
  const runs = rows.slice(0, limit).map(({ cell, run }) => {
    const owned = cells[cell]!;
    return {
      runId: run.runId,
      ...(owned.rungId === undefined ? {} : { rungId: owned.rungId }),
      slug: run.slug,
      version: run.version,
      variant: run.variant,
      engine: run.engine,
      harness: run.harness,
      model: run.model,
      ...ggRef(owned.cell.combination),
      finishedAt: run.finishedAt,
    };
  });
  return { runs, truncated: rows.length > limit };
}

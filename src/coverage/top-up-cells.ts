/**
 * The top-up walk (shared by plans and ladders). Given cells in emission order with their
 * counts, the target in force and the owner's occupancy, it launches whole cells (a cell is
 * never split; the one that crosses the target may overshoot it) until the target is
 * reached, through the same enqueue path as `POST /jobs` and `/gg/runs`: the same launch
 * rules, the same model admission, the same `enqueued` events, each job carrying `origin`.
 *
 * Crash safety: every launch of one top-up is written to SQLite in one transaction
 * (`enqueuePrepared`) before anything reaches Redis. A crash before that commit leaves
 * nothing; after it, every job of every chosen cell exists as a queued row, which the next
 * top-up counts as in flight and boot reconciliation queues in Redis. No cell is ever half
 * launched, and nothing is counted twice or launched twice.
 */
import type { LaunchBodyT } from '../api/schemas/jobs.js';
import { HttpError } from '../errors.js';
import { enqueuePrepared, prepareLaunch, type PreparedLaunch } from '../jobs/enqueue-runs.js';
import type { JobsContext } from '../jobs/jobs-context.js';
import type { HeldLock, ScheduleLocks } from '../queue/schedule-lock.js';
import { hasRoom, type BufferTarget } from './buffer-target.js';
import type { CellCounts } from './cell-counts.js';
import { cellView, type CoverageCell } from './coverage-cells.js';

export interface CountedCell {
  cell: CoverageCell;
  counts: CellCounts;
  /** Why it cannot launch, known before trying (see cell-launchability.ts), or null. */
  unlaunchable: string | null;
}

export type CellRef = ReturnType<typeof cellView>;

export interface TopUpResult {
  target: BufferTarget;
  occupancy: number;
  enqueued: number;
  launched: Array<{ cell: CellRef; jobIds: string[] }>;
  unlaunchable: Array<{ cell: CellRef; reason: string }>;
  skipped?: 'busy' | 'paused';
}

export const remainingOf = (cell: CoverageCell, counts: CellCounts) => Math.max(0, cell.desired - counts.completed - counts.inFlight);

/** The launch body of one run of a cell, on the cell's engine. */
function launchBody(cell: CoverageCell): LaunchBodyT {
  const { pin, combination } = cell;
  return {
    testCase: pin.slug,
    version: pin.version,
    variant: pin.variant,
    harness: combination.harness,
    model: combination.model,
    engine: pin.engine === 'none' ? null : pin.engine,
    ...(combination.provider ? { provider: combination.provider } : {}),
    ...(combination.gg ? { presetId: combination.gg.configId } : {}),
  };
}

export interface TopUpInput {
  accountId: string;
  origin: string;
  target: BufferTarget;
  occupancy: number;
  cells: CountedCell[];
}

/** Chooses and prepares the cells to launch; nothing is written yet. */
export async function prepareTopUp(ctx: JobsContext, input: TopUpInput) {
  const admissions = new Map<string, ReturnType<JobsContext['models']['admit']>>();
  const chosen: Array<{ cell: CoverageCell; launches: PreparedLaunch[] }> = [];
  const unlaunchable: TopUpResult['unlaunchable'] = [];
  let occupancy = input.occupancy;
  for (const { cell, counts, unlaunchable: known } of input.cells) {
    const remaining = remainingOf(cell, counts);
    if (remaining === 0) continue;
    if (!hasRoom(input.target, occupancy)) break;
    if (known) {
      unlaunchable.push({ cell: cellView(cell), reason: known });
      continue;
    }
    const body = launchBody(cell);
    const launches: PreparedLaunch[] = [];
    try {
      for (let i = 0; i < remaining; i++) {
        launches.push(await prepareLaunch(ctx, input.accountId, body, { origin: input.origin }, admissions, cell.combination.gg ?? undefined));
      }
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      unlaunchable.push({ cell: cellView(cell), reason: error.message });
      continue;
    }
    chosen.push({ cell, launches });
    occupancy += remaining;
  }
  return { chosen, unlaunchable };
}

/** One top-up under the owner's lock: prepare, confirm the lock, commit every launch at once. */
export async function topUpCells(ctx: JobsContext, lock: HeldLock, input: TopUpInput): Promise<TopUpResult> {
  const { chosen, unlaunchable } = await prepareTopUp(ctx, input);
  const launches = chosen.flatMap((item) => item.launches);
  if (launches.length > 0) await lock.confirm();
  const ids = await enqueuePrepared(ctx, launches, input.origin);
  let next = 0;
  const launched = chosen.map(({ cell, launches: own }) => ({ cell: cellView(cell), jobIds: ids.slice(next, (next += own.length)) }));
  return { target: input.target, occupancy: input.occupancy, enqueued: ids.length, launched, unlaunchable };
}

/** A schedule owner (a plan, a ladder) as a top-up sees it; both are read afresh on every call. */
export interface TopUpOwner {
  accountId: string;
  /** `plan:<id>`, `ladder:<id>`: the lock it holds and the origin its jobs record. */
  origin: string;
  paused(): boolean;
  /** Its cells in emission order with their counts, the target in force and its occupancy. */
  measure(): Promise<{ target: BufferTarget; occupancy: number; cells: CountedCell[] }>;
}

/**
 * A top-up serialized per owner across processes: `skipped: 'paused'` for a paused owner,
 * `'busy'` while another top-up holds its lock. Under the lock the owner is read again, so a
 * pause or halt that landed meanwhile is honoured and the shortfall is recomputed.
 */
export async function topUpOwner(ctx: JobsContext, locks: ScheduleLocks, owner: TopUpOwner): Promise<TopUpResult> {
  const skip = async (skipped: 'busy' | 'paused'): Promise<TopUpResult> => {
    const { target, occupancy } = await owner.measure();
    return { target, occupancy, enqueued: 0, launched: [], unlaunchable: [], skipped };
  };
  if (owner.paused()) return skip('paused');
  const attempt = await locks.withLock(owner.origin, async (lock) => {
    if (owner.paused()) return skip('paused');
    const { target, occupancy, cells } = await owner.measure();
    return topUpCells(ctx, lock, { accountId: owner.accountId, origin: owner.origin, target, occupancy, cells });
  });
  return attempt.held ? attempt.value : skip('busy');
}

/**
 * Halts by origin (shared by plans and ladders): cancels the non-terminal jobs launched for
 * one schedule owner, through the queue's atomic cancel, in bounded steps, recorded and
 * announced (`finished`) like every other cancel. Jobs of any other origin are never touched.
 */
import { recordCancel, SWEEP_STEP } from '../jobs/cancel-jobs.js';
import type { JobsContext } from '../jobs/jobs-context.js';
import type { ScheduleLocks } from '../queue/schedule-lock.js';
import type { CellCounter } from './cell-counts.js';

/** `waiting` reaches queued and pending jobs; `all` also dispatched, starting and running ones. */
export type HaltScope = 'waiting' | 'all';

export async function haltOrigin(ctx: JobsContext, counter: CellCounter, origin: string, scope: HaltScope, by: string) {
  const detail = `Canceled by ${by} (${scope === 'all' ? 'halt-all' : 'halt'} of ${origin}).`;
  const ids = counter.inFlightIdsOfOrigin(origin);
  let canceled = 0;
  for (let i = 0; i < ids.length; i += SWEEP_STEP) {
    const result = await ctx.queue.cancel(scope === 'all' ? 'any' : 'waiting', detail, { ids: ids.slice(i, i + SWEEP_STEP) });
    recordCancel(ctx, result, detail);
    canceled += result.canceled.length;
  }
  return { canceled, includedActive: scope === 'all' };
}

/** How long a halt waits for a top-up in progress to finish before cancelling without it. */
const HALT_LOCK_WAIT_MS = 35_000;

/**
 * A halt of an owner that was just paused: waits out a top-up in progress (its launches are
 * committed by the time it lets go, and the next one sees the pause), then cancels.
 */
export async function haltOwner(ctx: JobsContext, counter: CellCounter, locks: ScheduleLocks, origin: string, scope: HaltScope, by: string) {
  const halt = () => haltOrigin(ctx, counter, origin, scope, by);
  const attempt = await locks.withLock(origin, halt, { waitMs: HALT_LOCK_WAIT_MS });
  // A holder that stalled past the wait has lost its claim by now; cancel regardless.
  return attempt.held ? attempt.value : halt();
}

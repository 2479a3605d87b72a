/**
 * Halts by origin (shared by plans and ladders): cancels the non-terminal jobs launched for
 * one schedule owner, through the queue's atomic cancel, in bounded steps, recorded and
 * announced (`finished`) like every other cancel. Jobs of any other origin are never touched.
 */
import { recordCancel, SWEEP_STEP } from '../jobs/cancel-jobs.js';
import type { JobsContext } from '../jobs/jobs-context.js';
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

import { conflict, forbidden, notFound } from '../errors.js';
import { runEventJson } from '../events/run-events.js';
import type { CancelResult, CancelScope } from '../queue/run-queue.js';
import type { JobsContext, JobsRecorder } from './jobs-context.js';

// Bounds each sweep step so a large queue never blocks Redis for long.
export const SWEEP_STEP = 500;

/** Records what one cancel script did: the rows, `finished` events, released holds. A cancel raises no notification. */
export async function recordCancel(ctx: JobsRecorder, result: CancelResult, detail: string): Promise<void> {
  const at = new Date().toISOString();
  await ctx.copier.copy([
    ...result.canceled.map((job) => ({ id: job.id, state: 'canceled' as const, detail, recordId: null, at })),
    ...result.released.map((job) => ({ id: job.id, state: 'queued' as const })),
  ]);
  for (const job of result.canceled) ctx.bus.publishRun(runEventJson('finished', 'canceled', job.subjectJson, { recordId: null, detail }));
  for (const job of result.released) ctx.bus.publishRun(runEventJson('state-changed', 'queued', job.subjectJson));
}

/** `POST /jobs/{id}/cancel`: atomic from any non-terminal state; 409 on a terminal job. */
/** Who asks for a single cancel: an account, and whether it may act on other accounts' jobs. */
export interface Canceller {
  id: string;
  username: string;
  isOperator: boolean;
}

export async function cancelJob(ctx: JobsContext, id: string, by: Canceller) {
  const launchedBy = (await ctx.jobs.get(id))?.accountId;
  if (launchedBy !== undefined && launchedBy !== by.id && !by.isOperator) {
    throw forbidden(`Job ${id} was launched by another account; only an operator (OPERATOR_ACCOUNTS) may cancel it.`);
  }
  const detail = `Canceled by ${by.username}.`;
  const result = await ctx.queue.cancel('any', detail, { ids: [id] });
  await recordCancel(ctx, result, detail);
  // Redis decided: the answer is its outcome, whether or not the store has taken the copy yet.
  if (result.canceled.length > 0) return { id, state: 'canceled' as const, recordId: null, detail };
  const job = await ctx.jobs.get(id);
  if (!job) throw notFound(`No job ${id}.`);
  throw conflict(`Job ${id} already ${job.state}; only a job that has not finished can be canceled.`);
}

export type Sweep = 'cancel-waiting' | 'cancel-active' | 'cancel-all';

/**
 * The global sweeps: cancel what is waiting (queued, pending), what is active (dispatched,
 * starting, running), or both, as it stands when the sweep starts, in bounded atomic steps.
 */
export async function cancelSweep(ctx: JobsContext, sweep: Sweep, by: string) {
  const includedWaiting = sweep !== 'cancel-active';
  const includedActive = sweep !== 'cancel-waiting';
  const detail = `Canceled by ${by} (${sweep}).`;
  let canceled = 0;
  const run = async (scope: CancelScope, source: { ids: string[] } | { popWait: number }) => {
    const result = await ctx.queue.cancel(scope, detail, source);
    await recordCancel(ctx, result, detail);
    canceled += result.canceled.length;
    return result;
  };

  if (includedActive) {
    // Active first: canceling them frees slots that would otherwise release held jobs mid-sweep.
    const ids = await ctx.queue.activeIds();
    for (let i = 0; i < ids.length; i += SWEEP_STEP) await run('active', { ids: ids.slice(i, i + SWEEP_STEP) });
  }
  if (includedWaiting) {
    for (let left = await ctx.queue.waitListLength(); left > 0; left -= SWEEP_STEP) {
      const result = await run('waiting', { popWait: Math.min(left, SWEEP_STEP) });
      if (result.canceled.length + result.skipped.length === 0) break;
    }
    for await (const held of ctx.queue.heldPages(SWEEP_STEP)) await run('waiting', { ids: held });
  }
  return { canceled, includedWaiting, includedActive };
}

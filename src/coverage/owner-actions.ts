/**
 * What is done to an owner under its lock, across processes: top-up, halt and pause.
 *
 * Crash safety: every launch of one top-up is written to the store in one transaction
 * (`enqueuePrepared`) before anything reaches Redis, so no cell is ever half launched and
 * the next top-up counts what was committed as in flight.
 *
 * A halt wins over a top-up: it pauses first; the top-up reads the pause every
 * `FED_CHECK_INTERVAL_MS` of its walk (`top-up-walk.ts`) and right before it commits, and stops; the halt then
 * cancels under the lock, and if a top-up stalled past the wait it cancels at once and again
 * once that top-up lets go.
 */
import { recordCancel, SWEEP_STEP } from '../jobs/cancel-jobs.js';
import { enqueuePrepared } from '../jobs/enqueue-runs.js';
import { SECOND } from '../time.js';
import { ownerGone, scheduleOf, targetOf, type OwnerContext, type ScheduleOwner } from './schedule-owner.js';
import { answerOf, prepareTopUp, type TopUpResult } from './top-up-walk.js';

/** `POST …/pause`: flips `paused` alone; cancels nothing, launches nothing. */
export async function pauseOwner(ctx: OwnerContext, origin: string, noun: string, paused: boolean): Promise<void> {
  if (!(await ctx.schedules.setPaused(origin, paused))) throw ownerGone(origin, noun);
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

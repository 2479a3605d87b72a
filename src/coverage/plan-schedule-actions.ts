import type { Account } from '../accounts/verify-token.js';
import type { CoveragePlan } from '../db/coverage-plans-table.js';
import { notFound } from '../errors.js';
import { summaryCardJson } from '../runs/run-views.js';
import { runInCell } from './cell-counts.js';
import type { CoverageContext } from './coverage-context.js';
import { planOrigin, requirePlan } from './coverage-plans.js';
import { haltOrigin, type HaltScope } from './halt-origin.js';
import { measurePlan, planCells } from './plan-matrix.js';
import { topUpCells, type TopUpResult } from './top-up-cells.js';

/** How long a halt waits for a top-up in progress to finish before cancelling without it. */
const HALT_LOCK_WAIT_MS = 35_000;

function skipped(ctx: CoverageContext, accountId: string, plan: CoveragePlan, reason: 'busy' | 'paused'): TopUpResult {
  const { target, occupancy } = measurePlan(ctx, accountId, plan);
  return { target, occupancy, enqueued: 0, launched: [], unlaunchable: [], skipped: reason };
}

/**
 * `POST /coverage-plans/{id}/topup`: serialized per plan across processes by the plan's
 * schedule lock. The plan is read again under the lock, so a pause or halt that landed while
 * waiting is honoured, and the shortfall is recomputed from what is stored.
 */
export async function topUpPlan(ctx: CoverageContext, accountId: string, id: string): Promise<TopUpResult> {
  const plan = requirePlan(ctx, accountId, id);
  if (plan.schedule.paused) return skipped(ctx, accountId, plan, 'paused');
  const origin = planOrigin(id);
  const attempt = await ctx.locks.withLock(origin, async (lock) => {
    const current = requirePlan(ctx, accountId, id);
    if (current.schedule.paused) return skipped(ctx, accountId, current, 'paused');
    const measured = measurePlan(ctx, accountId, current);
    return topUpCells(ctx.jobs, lock, { accountId, origin, target: measured.target, occupancy: measured.occupancy, cells: measured.cells });
  });
  return attempt.held ? attempt.value : skipped(ctx, accountId, plan, 'busy');
}

/** After a review: every plan of the reviewer with `autoTopUp` whose cells hold the run tops up. */
export async function autoTopUpAfterReview(ctx: CoverageContext, account: Account, runId: string): Promise<void> {
  const run = ctx.counter.runIdentity(runId);
  if (!run) return;
  for (const plan of ctx.plans.list(account.id)) {
    if (!plan.schedule.autoTopUp || plan.schedule.paused) continue;
    if (!planCells(ctx, account.id, plan).some((cell) => runInCell(run, cell))) continue;
    await topUpPlan(ctx, account.id, plan.id);
  }
}

/** `POST /coverage-plans/{id}/pause`: flips `paused`, cancels nothing. */
export function pausePlan(ctx: CoverageContext, accountId: string, id: string, paused: boolean) {
  const plan = requirePlan(ctx, accountId, id);
  const updated = ctx.plans.setSchedule(accountId, id, { ...plan.schedule, paused });
  if (!updated) throw notFound(`No coverage plan ${id}.`);
  return updated.schedule;
}

/**
 * `halt` and `halt-all`: pause first, so no new top-up starts, then wait out one in progress
 * (its launches are committed by the time it lets go), then cancel the plan's jobs.
 */
export async function haltPlan(ctx: CoverageContext, account: Account, id: string, scope: HaltScope) {
  pausePlan(ctx, account.id, id, true);
  const origin = planOrigin(id);
  const halt = () => haltOrigin(ctx.jobs, ctx.counter, origin, scope, account.username);
  const attempt = await ctx.locks.withLock(origin, halt, { waitMs: HALT_LOCK_WAIT_MS });
  // A holder that stalled past the wait has lost its claim by now; cancel regardless.
  return attempt.held ? attempt.value : halt();
}

export const DEFAULT_QUEUE_LIMIT = 50;

/** `GET /coverage-plans/{id}/queue`: the requester's unreviewed completed runs, plan order, as JSON text of summary cards. */
export async function planQueue(ctx: CoverageContext, accountId: string, id: string, limit = DEFAULT_QUEUE_LIMIT): Promise<string> {
  const plan = requirePlan(ctx, accountId, id);
  const rows = ctx.counter.unreviewedRuns(planCells(ctx, accountId, plan), accountId, limit + 1);
  const fresh = await ctx.grades.freshen(rows.slice(0, limit));
  return `{"runs":[${fresh.map(summaryCardJson).join(',')}],"truncated":${rows.length > limit}}`;
}

import type { Account } from '../accounts/verify-token.js';
import { runInCell } from './cell-counts.js';
import type { CoverageContext } from './coverage-context.js';
import { planOrigin, requirePlan } from './coverage-plans.js';
import { measurePlan, planCells } from './plan-matrix.js';
import { haltOwner, pauseOwner, topUpOwner, type HaltScope } from './owner-actions.js';
import { ownerQueue } from './owner-queue.js';
import type { ScheduleOwner } from './schedule-owner.js';
import type { TopUpResult } from './top-up-walk.js';

const NOUN = 'coverage plan';

/** The plan as a schedule owner, read afresh on every measure. */
const planOwner = (ctx: CoverageContext, accountId: string, id: string): ScheduleOwner => ({
  accountId,
  origin: planOrigin(id),
  measure: async () => measurePlan(ctx, accountId, await requirePlan(ctx, accountId, id)),
});

/** `POST /coverage-plans/{id}/topup`. */
export async function topUpPlan(ctx: CoverageContext, accountId: string, id: string, { followUp = false } = {}): Promise<TopUpResult> {
  await requirePlan(ctx, accountId, id);
  return topUpOwner(ctx, planOwner(ctx, accountId, id), NOUN, { followUp });
}

/** After a review: every plan of the reviewer with `autoTopUp` whose cells hold the run tops up (a busy lock leaves a mark its holder acts on). */
export async function autoTopUpAfterReview(ctx: CoverageContext, account: Account, runId: string): Promise<void> {
  const run = await ctx.counter.runIdentity(runId);
  if (!run) return;
  for (const plan of await ctx.plans.list(account.id)) {
    if (!plan.schedule.autoTopUp || plan.schedule.paused) continue;
    if (!(await planCells(ctx, account.id, plan)).some((cell) => runInCell(run, cell))) continue;
    await topUpPlan(ctx, account.id, plan.id, { followUp: true });
  }
}

/** `POST /coverage-plans/{id}/pause`: flips `paused`, cancels nothing. */
export async function pausePlan(ctx: CoverageContext, accountId: string, id: string, paused: boolean) {
  await requirePlan(ctx, accountId, id);
  await pauseOwner(ctx, planOrigin(id), NOUN, paused);
  return (await requirePlan(ctx, accountId, id)).schedule;
}

/** `halt` and `halt-all`: pause first, then cancel the plan's own jobs (a top-up in progress stops at its next step). */
export async function haltPlan(ctx: CoverageContext, account: Account, id: string, scope: HaltScope) {
  await requirePlan(ctx, account.id, id);
  return haltOwner(ctx, planOrigin(id), NOUN, scope, account.username);
}

/** `GET /coverage-plans/{id}/queue`: the requester's unreviewed completed runs in plan order. */
export async function planQueue(ctx: CoverageContext, accountId: string, id: string, limit?: number) {
  const cells = await planCells(ctx, accountId, await requirePlan(ctx, accountId, id));
  return ownerQueue(ctx, cells.map((cell) => ({ cell })), accountId, limit);
}

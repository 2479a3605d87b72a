import type { Account } from '../accounts/verify-token.js';
import { notFound } from '../errors.js';
import { runInCell } from './cell-counts.js';
import type { CoverageContext } from './coverage-context.js';
import { planOrigin, requirePlan } from './coverage-plans.js';
import { haltOwner, type HaltScope } from './halt-origin.js';
import { measurePlan, planCells } from './plan-matrix.js';
import { reviewQueueJson } from './review-queue.js';
import { topUpOwner, type TopUpResult } from './top-up-cells.js';

/** `POST /coverage-plans/{id}/topup`: the plan as a top-up owner, read afresh under its lock. */
export async function topUpPlan(ctx: CoverageContext, accountId: string, id: string): Promise<TopUpResult> {
  requirePlan(ctx, accountId, id);
  return topUpOwner(ctx.jobs, ctx.locks, {
    accountId,
    origin: planOrigin(id),
    paused: () => requirePlan(ctx, accountId, id).schedule.paused,
    measure: () => measurePlan(ctx, accountId, requirePlan(ctx, accountId, id)),
  });
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

/** `halt` and `halt-all`: pause first, so no new top-up starts, then halt the plan's jobs. */
export async function haltPlan(ctx: CoverageContext, account: Account, id: string, scope: HaltScope) {
  pausePlan(ctx, account.id, id, true);
  return haltOwner(ctx.jobs, ctx.counter, ctx.locks, planOrigin(id), scope, account.username);
}

/** `GET /coverage-plans/{id}/queue`: the requester's unreviewed completed runs in plan order. */
export async function planQueue(ctx: CoverageContext, accountId: string, id: string, limit?: number): Promise<string> {
  const plan = requirePlan(ctx, accountId, id);
  return reviewQueueJson(ctx.grades, ctx.counter, planCells(ctx, accountId, plan), accountId, limit);
}

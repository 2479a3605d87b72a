import type { CoveragePlan } from '../db/coverage-plans-table.js';
import { resolveCombination } from './combinations.js';
import { ggConfigLookup, type CoverageContext } from './coverage-context.js';
import { cellView, crossCells, pinOf, uniqueCombinations, uniquePins, type CoverageCell } from './coverage-cells.js';
import { occupancyOf, remainingOf, targetOf, uniqueCells, type OwnedCell } from './schedule-owner.js';

/**
 * A plan's cells in emission order: its case groups' pins then its own, crossed with its
 * combo groups' members then its own, nested on `outerAxis`. Dangling group ids are ignored.
 */
export async function planCells(ctx: CoverageContext, accountId: string, plan: CoveragePlan): Promise<CoverageCell[]> {
  const stored = await ctx.groups.byIds(accountId, [...plan.caseGroupIds, ...plan.comboGroupIds]);
  const groups = (ids: string[], kind: 'case' | 'combo') =>
    ids.flatMap((id) => {
      const group = stored.get(id);
      return group && group.kind === kind ? [group] : [];
    });
  const configs = await ggConfigLookup(ctx.jobs, accountId);
  const pins = uniquePins([...groups(plan.caseGroupIds, 'case').flatMap((group) => group.cases), ...plan.cases].map(pinOf));
  const combos = uniqueCombinations(
    [...groups(plan.comboGroupIds, 'combo').flatMap((group) => group.combos), ...plan.combos].map((combo) => resolveCombination(combo, configs)),
  );
  return crossCells(pins, combos, plan.schedule.outerAxis === 'case', () => plan.runsPerCell);
}

/** Every cell of the plan counted for the requester, with its newest ingested version: what a top-up feeds and the buffer covers. */
export async function measurePlan(ctx: CoverageContext, accountId: string, plan: CoveragePlan) {
  const cells = await planCells(ctx, accountId, plan);
  const counts = await ctx.counter.count(cells, accountId);
  const check = await ctx.launchability(cells);
  const feed = cells.map((cell, i): OwnedCell & { latestVersion: string } => ({
    cell, counts: counts[i]!, unlaunchable: check.unlaunchable(cell), latestVersion: check.latestVersion(cell.pin.slug),
  }));
  return { feed, review: uniqueCells(feed) };
}

/** The roll-ups the matrix and the summary share. */
async function rollups(ctx: CoverageContext, accountId: string, plan: CoveragePlan, measured: Awaited<ReturnType<typeof measurePlan>>) {
  let cellsSatisfied = 0;
  let runsMissing = 0;
  let runsPending = 0;
  let runsUnreviewed = 0;
  for (const { cell, counts } of measured.feed) {
    const remaining = remainingOf(cell, counts);
    if (remaining === 0) cellsSatisfied += 1;
    runsMissing += remaining;
    runsPending += counts.pending;
    runsUnreviewed += counts.unreviewed;
  }
  return {
    outerAxis: plan.schedule.outerAxis,
    cellsSatisfied,
    cellsTotal: measured.feed.length,
    runsMissing,
    runsPending,
    runsUnreviewed,
    runsOutstanding: occupancyOf(measured.review),
    bufferTarget: await targetOf(ctx, accountId, plan.schedule),
  };
}

/** `GET /coverage-plans/{id}/coverage`. */
export async function planMatrix(ctx: CoverageContext, accountId: string, plan: CoveragePlan) {
  const measured = await measurePlan(ctx, accountId, plan);
  const cells = measured.feed.map(({ cell, counts, unlaunchable, latestVersion }) => ({
    ...cellView(cell),
    desired: cell.desired,
    ...counts,
    remaining: remainingOf(cell, counts),
    // The contract also names the per-cell figures runsPending, runsUnreviewed, runsOutstanding.
    runsPending: counts.pending,
    runsUnreviewed: counts.unreviewed,
    runsOutstanding: counts.inFlight + counts.unreviewed,
    latestVersion,
    stale: latestVersion !== '' && latestVersion !== cell.pin.version,
    unlaunchable,
  }));
  return { cells, ...(await rollups(ctx, accountId, plan, measured)) };
}

/**
 * `GET /coverage-plans/summary`: a bare array, one entry per plan of the account, in the
 * original's shape (crates/backend/src/api/coverage.rs `plans_summary`).
 */
export async function planSummary(ctx: CoverageContext, accountId: string) {
  const plans = [];
  for (const plan of await ctx.plans.list(accountId)) {
    const roll = await rollups(ctx, accountId, plan, await measurePlan(ctx, accountId, plan));
    plans.push({
      id: plan.id,
      name: plan.name,
      runsPerCell: plan.runsPerCell,
      cellsSatisfied: roll.cellsSatisfied,
      cellsTotal: roll.cellsTotal,
      runsMissing: roll.runsMissing,
      runsUnreviewed: roll.runsUnreviewed,
      paused: plan.schedule.paused,
      autoTopUp: plan.schedule.autoTopUp,
    });
  }
  return plans;
}

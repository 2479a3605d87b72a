import type { CoveragePlan } from '../db/coverage-plans-table.js';
import { targetInForce, type BufferTarget } from './buffer-target.js';
import { resolveCombination } from './combinations.js';
import { ggConfigLookup, type CoverageContext } from './coverage-context.js';
import { cellView, crossCells, pinOf, uniqueCombinations, uniquePins, type CoverageCell } from './coverage-cells.js';
import { planOrigin } from './coverage-plans.js';
import { remainingOf, type CountedCell } from './top-up-cells.js';

/**
 * A plan's cells in emission order: its case groups' pins then its own, crossed with its
 * combo groups' members then its own, nested on `outerAxis`. Dangling group ids are ignored.
 */
export function planCells(ctx: CoverageContext, accountId: string, plan: CoveragePlan): CoverageCell[] {
  const groups = (ids: string[], kind: 'case' | 'combo') =>
    ids.flatMap((id) => {
      const group = ctx.groups.get(accountId, id);
      return group && group.kind === kind ? [group] : [];
    });
  const configs = ggConfigLookup(ctx.jobs, accountId);
  const pins = uniquePins([...groups(plan.caseGroupIds, 'case').flatMap((group) => group.cases), ...plan.cases].map(pinOf));
  const combos = uniqueCombinations(
    [...groups(plan.comboGroupIds, 'combo').flatMap((group) => group.combos), ...plan.combos].map((combo) => resolveCombination(combo, configs)),
  );
  return crossCells(pins, combos, plan.schedule.outerAxis === 'case', () => plan.runsPerCell);
}

export interface MeasuredPlan {
  cells: Array<CountedCell & { latestVersion: string }>;
  target: BufferTarget;
  /** The plan's jobs in flight plus its cells' completed runs the requester has not reviewed. */
  occupancy: number;
}

/** Counts every cell of the plan for the requester and works out the buffer in force. */
export async function measurePlan(ctx: CoverageContext, accountId: string, plan: CoveragePlan): Promise<MeasuredPlan> {
  const cells = planCells(ctx, accountId, plan);
  const counts = await ctx.counter.count(cells, accountId);
  const check = ctx.launchability();
  let unreviewed = 0;
  const counted = cells.map((cell, i) => {
    unreviewed += counts[i]!.unreviewed;
    return { cell, counts: counts[i]!, unlaunchable: check.unlaunchable(cell), latestVersion: check.latestVersion(cell.pin.slug) };
  });
  return {
    cells: counted,
    target: targetInForce(plan.schedule.bufferTarget, ctx.settings.bufferTarget(accountId)),
    occupancy: ctx.counter.inFlightOfOrigin(planOrigin(plan.id)) + unreviewed,
  };
}

/** The roll-ups the matrix and the summary share. */
function rollups(plan: CoveragePlan, measured: MeasuredPlan) {
  let cellsSatisfied = 0;
  let runsMissing = 0;
  let runsPending = 0;
  let runsUnreviewed = 0;
  for (const { cell, counts } of measured.cells) {
    const remaining = remainingOf(cell, counts);
    if (remaining === 0) cellsSatisfied += 1;
    runsMissing += remaining;
    runsPending += counts.pending;
    runsUnreviewed += counts.unreviewed;
  }
  return {
    outerAxis: plan.schedule.outerAxis,
    cellsSatisfied,
    cellsTotal: measured.cells.length,
    runsMissing,
    runsPending,
    runsUnreviewed,
    runsOutstanding: measured.occupancy,
    bufferTarget: measured.target,
  };
}

/** `GET /coverage-plans/{id}/coverage`. */
export async function planMatrix(ctx: CoverageContext, accountId: string, plan: CoveragePlan) {
  const measured = await measurePlan(ctx, accountId, plan);
  const cells = measured.cells.map(({ cell, counts, unlaunchable, latestVersion }) => ({
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
  return { cells, ...rollups(plan, measured) };
}

/** `GET /coverage-plans/summary`: every plan of the account with its roll-ups. */
export async function planSummary(ctx: CoverageContext, accountId: string) {
  const plans = [];
  for (const plan of ctx.plans.list(accountId)) {
    plans.push({
      id: plan.id,
      name: plan.name,
      paused: plan.schedule.paused,
      autoTopUp: plan.schedule.autoTopUp,
      ...rollups(plan, await measurePlan(ctx, accountId, plan)),
    });
  }
  return { plans };
}

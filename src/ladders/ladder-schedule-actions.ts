import type { Account } from '../accounts/verify-token.js';
import { runInCell } from '../coverage/cell-counts.js';
import { haltOwner, type HaltScope } from '../coverage/halt-origin.js';
import { DEFAULT_QUEUE_LIMIT } from '../coverage/review-queue.js';
import { topUpOwner, type TopUpResult } from '../coverage/top-up-cells.js';
import type { NewVerdict } from '../db/ladder-verdicts-table.js';
import type { Ladder } from '../db/ladders-table.js';
import { notFound } from '../errors.js';
import { summaryCardJson } from '../runs/run-views.js';
import { effectiveOutcome } from './climber-standing.js';
import { ladderClimbers } from './ladder-climbers.js';
import { ladderOrigin, type LadderContext } from './ladder-context.js';
import { reachedCells } from './ladder-progress.js';
import { ladderCells, launchableCells, measureLadder, type MeasuredLadder } from './measure-ladder.js';
import { requireLadder } from './manage-ladders.js';

/** The verdicts the board resolved live: what a top-up writes down. */
function liveVerdicts(measured: MeasuredLadder): NewVerdict[] {
  return measured.climbers.flatMap((climber) =>
    climber.standing.unrecorded.map((position) => {
      const { rung, standing } = climber.rungs[position]!;
      return { climberKey: climber.climber.combination.key, rungId: rung.id, decidedVersion: rung.version, decidedEngine: rung.engine, outcome: effectiveOutcome(standing)! };
    }));
}

/**
 * `POST /ladders/{id}/topup`: stores the verdicts resolved since the last one, then launches
 * each climbing climber's current rung (never a rung above it) while the buffer, counted over
 * every rung a climber reached, has room. Serialized per ladder across processes by coverage's
 * owner top-up; the ladder is measured again under the lock.
 */
export async function topUpLadder(ctx: LadderContext, accountId: string, id: string): Promise<TopUpResult> {
  requireLadder(ctx, accountId, id);
  return topUpOwner(ctx.coverage.jobs, ctx.coverage.locks, {
    accountId,
    origin: ladderOrigin(id),
    paused: () => requireLadder(ctx, accountId, id).paused,
    async measure() {
      const measured = await measureLadder(ctx, accountId, requireLadder(ctx, accountId, id));
      // Writing them down is idempotent (a stored verdict is kept as it was), so a skipped top-up may do it too.
      ctx.verdicts.record(id, liveVerdicts(measured));
      const check = ctx.coverage.launchability();
      const cells = launchableCells(measured).map(({ cell, counts }) => ({ cell, counts, unlaunchable: check.unlaunchable(cell) }));
      return { target: measured.target, occupancy: measured.occupancy, cells };
    },
  });
}

/** After a review: every ladder of the reviewer with `autoTopUp` whose cells hold the run tops up. */
export async function autoTopUpLadders(ctx: LadderContext, account: Account, runId: string): Promise<void> {
  const run = ctx.coverage.counter.runIdentity(runId);
  if (!run) return;
  for (const ladder of ctx.ladders.list(account.id)) {
    if (!ladder.autoTopUp || ladder.paused) continue;
    if (!ladderCells(ladder, ladderClimbers(ctx, ladder)).some((cell) => runInCell(run, cell))) continue;
    await topUpLadder(ctx, account.id, ladder.id);
  }
}

/** `POST /ladders/{id}/pause`: the enable switch. Cancels nothing and launches nothing: an enabling caller follows with a top-up. */
export function pauseLadder(ctx: LadderContext, accountId: string, id: string, paused: boolean) {
  if (!ctx.ladders.setPaused(accountId, id, paused)) throw notFound(`No ladder ${id}.`);
  const { outerAxis, autoTopUp, bufferTarget } = requireLadder(ctx, accountId, id);
  return { outerAxis, paused, autoTopUp, bufferTarget };
}

/** `halt` and `halt-all`: pause, wait out a top-up in progress, then cancel the ladder's own jobs. */
export async function haltLadder(ctx: LadderContext, account: Account, id: string, scope: HaltScope) {
  pauseLadder(ctx, account.id, id, true);
  return haltOwner(ctx.coverage.jobs, ctx.coverage.counter, ctx.coverage.locks, ladderOrigin(id), scope, account.username);
}

/**
 * `GET /ladders/{id}/queue`: the requester's unreviewed completed runs over every rung a
 * climber reached (the runs the buffer counts), in emission order, as JSON text of summary cards.
 */
export async function ladderQueue(ctx: LadderContext, accountId: string, ladder: Ladder, limit = DEFAULT_QUEUE_LIMIT): Promise<string> {
  const measured = await measureLadder(ctx, accountId, ladder);
  const reached = reachedCells(measured.climbers, ladder.outerAxis);
  // Unloaded builds the gate rated broken wait on no review: fetch past them, then leave them out.
  const skippable = reached.reduce((sum, rung) => sum + rung.unloadedUnreviewed, 0);
  const rows = ctx.coverage.counter.unreviewedRuns(reached.map((rung) => rung.cell), accountId, limit + 1 + skippable)
    .filter((row) => skippable === 0 || (JSON.parse(row.summary ?? '{}') as { validationLoaded?: boolean }).validationLoaded !== false)
    .slice(0, limit + 1);
  const fresh = await ctx.coverage.grades.freshen(rows.slice(0, limit));
  return `{"runs":[${fresh.map(summaryCardJson).join(',')}],"truncated":${rows.length > limit}}`;
}

import type { Account } from '../accounts/verify-token.js';
import { runInCell } from '../coverage/cell-counts.js';
import { haltOwner, pauseOwner, topUpOwner, type HaltScope } from '../coverage/owner-actions.js';
import { ownerQueue } from '../coverage/owner-queue.js';
import type { TopUpResult } from '../coverage/top-up-walk.js';
import type { NewVerdict } from '../db/ladder-verdicts-table.js';
import type { Ladder } from '../db/ladders-table.js';
import { effectiveOutcome } from './climber-standing.js';
import { ladderClimbers } from './ladder-climbers.js';
import { ladderOrigin, type LadderContext } from './ladder-context.js';
import { ladderCells, launchableCells, measureLadder, ownedCell, type MeasuredLadder } from './measure-ladder.js';
import { requireLadder, scheduleView } from './manage-ladders.js';

const NOUN = 'ladder';

/** The verdicts the board resolved live: what a top-up writes down. */
function liveVerdicts(measured: MeasuredLadder): NewVerdict[] {
  return measured.climbers.flatMap((climber) =>
    climber.standing.unrecorded.map((position) => {
      const { rung, standing } = climber.rungs[position]!;
      return {
        climberKey: climber.climber.combination.key, rungId: rung.id, decidedSlug: rung.slug, decidedVersion: rung.version, decidedEngine: rung.engine,
        outcome: effectiveOutcome(standing)!,
      };
    }));
}

/**
 * `POST /ladders/{id}/topup`: stores the verdicts resolved since the last one, then launches
 * each climbing climber's current rung (never a rung above it) while the buffer, counted over
 * every rung a climber reached, has room (src/coverage/schedule-owner.ts).
 */
export async function topUpLadder(ctx: LadderContext, accountId: string, id: string, { followUp = false } = {}): Promise<TopUpResult> {
  await requireLadder(ctx, accountId, id);
  return topUpOwner(ctx.coverage, {
    accountId,
    origin: ladderOrigin(id),
    async measure() {
      const measured = await measureLadder(ctx, accountId, await requireLadder(ctx, accountId, id));
      // Writing them down is idempotent (a stored verdict is kept as it was).
      await ctx.verdicts.record(id, liveVerdicts(measured));
      const feed = launchableCells(measured);
      const check = await ctx.coverage.launchability(feed.map((rung) => rung.cell));
      return { feed: feed.map((rung) => ownedCell(rung, check.unlaunchable(rung.cell))), review: measured.review };
    },
  }, NOUN, { followUp });
}

/** After a review: every ladder of the reviewer with `autoTopUp` whose cells hold the run tops up (a busy lock leaves a mark its holder acts on). */
export async function autoTopUpLadders(ctx: LadderContext, account: Account, runId: string): Promise<void> {
  const run = await ctx.coverage.counter.runIdentity(runId);
  if (!run) return;
  for (const ladder of await ctx.ladders.list(account.id)) {
    if (!ladder.autoTopUp || ladder.paused) continue;
    if (!ladderCells(ladder, await ladderClimbers(ctx, ladder)).some((cell) => runInCell(run, cell))) continue;
    await topUpLadder(ctx, account.id, ladder.id, { followUp: true });
  }
}

/** `POST /ladders/{id}/pause`: the enable switch. Cancels nothing and launches nothing: an enabling caller follows with a top-up. */
export async function pauseLadder(ctx: LadderContext, accountId: string, id: string, paused: boolean) {
  await requireLadder(ctx, accountId, id);
  await pauseOwner(ctx.coverage, ladderOrigin(id), NOUN, paused);
  return scheduleView(await requireLadder(ctx, accountId, id));
}

/** `halt` and `halt-all`: pause first, then cancel the ladder's own jobs (a top-up in progress stops at its next step). */
export async function haltLadder(ctx: LadderContext, account: Account, id: string, scope: HaltScope) {
  await requireLadder(ctx, account.id, id);
  return haltOwner(ctx.coverage, ladderOrigin(id), NOUN, scope, account.username);
}

/**
 * `GET /ladders/{id}/queue`: the requester's unreviewed completed runs over every rung a
 * climber reached (the runs the buffer counts), in emission order, each run once; unloaded
 * builds the gate already rated broken wait on no review and are left out.
 */
export async function ladderQueue(ctx: LadderContext, accountId: string, ladder: Ladder, limit?: number) {
  const measured = await measureLadder(ctx, accountId, ladder);
  return ownerQueue(ctx.coverage, measured.review, accountId, limit, ladder.gate.unloadedCountsAsBroken);
}

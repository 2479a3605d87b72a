import { combinationView } from '../coverage/combinations.js';
import { cellView } from '../coverage/coverage-cells.js';
import { remainingOf } from '../coverage/schedule-owner.js';
import type { StoredVerdict } from '../db/ladder-verdicts-table.js';
import type { Ladder } from '../db/ladders-table.js';
import { effectiveOutcome, type LadderOutcome } from './climber-standing.js';
import type { LadderContext } from './ladder-context.js';
import { measureLadder, type ClimberRung, type MeasuredClimber } from './measure-ladder.js';

/** One verdict as the board lists it. */
export function outcomeView(verdict: StoredVerdict, stale: boolean) {
  return {
    rungId: verdict.rungId,
    decidedVersion: verdict.decidedVersion,
    outcome: verdict.outcome,
    effective: verdict.overrideOutcome ?? verdict.outcome,
    overrideOutcome: verdict.overrideOutcome,
    overrideAt: verdict.overrideAt,
    decidedAt: verdict.decidedAt,
    stale,
    recorded: true,
  };
}

/** A verdict resolved live for this response: what the next top-up will store. */
function liveOutcomeView(rung: ClimberRung, outcome: LadderOutcome, now: string) {
  return {
    rungId: rung.rung.id,
    decidedVersion: rung.rung.version,
    outcome,
    effective: outcome,
    overrideOutcome: null,
    overrideAt: null,
    decidedAt: now,
    stale: false,
    recorded: false,
  };
}

/** The climber's verdicts in climb order (stored, or resolved live up to where it stands), then stale ones. */
function outcomesOf(measured: MeasuredClimber, now: string) {
  const live = new Set(measured.standing.unrecorded);
  const current = measured.rungs.flatMap((rung) => {
    const stored = measured.verdicts.get(rung.rung.id);
    if (stored) return [outcomeView(stored, false)];
    const outcome = live.has(rung.position) ? effectiveOutcome(rung.standing) : null;
    return outcome ? [liveOutcomeView(rung, outcome, now)] : [];
  });
  return [...current, ...measured.staleVerdicts.map((verdict) => outcomeView(verdict, true))];
}

function currentRungView(rung: ClimberRung, latestVersion: string, unlaunchable: string | null) {
  const { counts, cell } = rung;
  return {
    rungId: rung.rung.id,
    position: rung.position,
    ...cellView(cell),
    desired: cell.desired,
    ...counts,
    remaining: remainingOf(cell, counts),
    runsPending: counts.pending,
    runsUnreviewed: counts.unreviewed,
    runsOutstanding: counts.inFlight + counts.unreviewed,
    latestVersion,
    stale: latestVersion !== '' && latestVersion !== cell.pin.version,
    unlaunchable,
    tally: rung.standing.live.tally,
    // A climber walled by a recorded or overridden verdict stands on a wall, whatever the
    // evidence says now (the original's `rung_state(…, GateOutcome::Wall)`).
    outcome: effectiveOutcome(rung.standing) === 'walled' ? ('wall' as const) : rung.standing.live.outcome,
  };
}

/**
 * `GET /ladders/{id}/progress`: the board (open-points.md, Ladder progress). A read: verdicts
 * it resolves are marked `recorded: false` and stored by the next top-up.
 */
export async function ladderProgress(ctx: LadderContext, accountId: string, ladder: Ladder) {
  const measured = await measureLadder(ctx, accountId, ladder);
  const check = await ctx.coverage.launchability(measured.climbers.flatMap((climber) => climber.rungs.map((rung) => rung.cell)));
  const now = new Date().toISOString();
  let climbersToppedOut = 0;
  let climbersWalled = 0;
  let runsMissing = 0;

  const climbers = measured.climbers.map((climber) => {
    const { combination, steering } = climber.climber;
    const { status, current } = climber.standing;
    const rung = current === null ? null : climber.rungs[current]!;
    const cellProblem = rung ? check.unlaunchable(rung.cell) : null;
    if (status === 'toppedOut') climbersToppedOut += 1;
    if (status === 'walled') climbersWalled += 1;
    if (rung && status === 'climbing') runsMissing += remainingOf(rung.cell, rung.counts);
    return {
      key: combination.key,
      ...combinationView(combination),
      priority: steering.priority,
      focused: steering.focused,
      held: steering.held,
      status,
      currentRung: rung ? currentRungView(rung, check.latestVersion(rung.cell.pin.slug), cellProblem) : null,
      outcomes: outcomesOf(climber, now),
      unlaunchable: combination.unlaunchable ?? cellProblem,
    };
  });

  return {
    ladderId: ladder.id,
    outerAxis: ladder.outerAxis,
    rungs: ladder.rungs.map((rung, position) => {
      const latestVersion = check.latestVersion(rung.slug);
      return { ...rung, position, latestVersion, stale: latestVersion !== '' && latestVersion !== rung.version };
    }),
    climbers,
    climbersToppedOut,
    climbersWalled,
    runsMissing,
    runsUnreviewed: measured.unreviewed,
    runsOutstanding: measured.occupancy,
    bufferTarget: measured.target,
  };
}

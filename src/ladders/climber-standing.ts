import type { GateOutcome, RungTally } from './gate.js';

/** A resolved verdict as the wire names it; "not decided yet" is the absence of one. */
export type LadderOutcome = 'advanced' | 'walled';

export type ClimberStatus = 'climbing' | 'awaitingReview' | 'walled' | 'held' | 'toppedOut';

/** A verdict stored for one climber on one rung, against the rung's current pin. */
export interface RecordedVerdict {
  outcome: LadderOutcome;
  decidedAt: string;
  overrideOutcome: LadderOutcome | null;
  overrideAt: string | null;
}

/** One rung as one climber stands on it: the stored verdict (if any) and the gate's live answer. */
export interface RungStanding {
  recorded: RecordedVerdict | null;
  live: { tally: RungTally; outcome: GateOutcome };
}

export interface ClimberStanding {
  status: ClimberStatus;
  /** Index of the rung the climber stands on; null once it has topped out. */
  current: number | null;
  /** Rungs whose verdict was resolved live and is not stored yet, in climb order. */
  unrecorded: number[];
}

/** The verdict that governs the climb at one rung: the override, else the stored outcome, else the live one. */
export function effectiveOutcome(standing: RungStanding): LadderOutcome | null {
  if (standing.recorded) return standing.recorded.overrideOutcome ?? standing.recorded.outcome;
  if (standing.live.outcome === 'advance') return 'advanced';
  if (standing.live.outcome === 'wall') return 'walled';
  return null;
}

/**
 * Where a climber stands (open-points.md, Climber status): the first rung without an
 * effective `advance` is current; it is `walled` when its verdict is a wall, `climbing` while
 * runs are still to complete there, `awaitingReview` once all ran and some wait on a review;
 * `toppedOut` past the last rung. A hold wins over all of them and moves nothing.
 */
export function climberStanding(held: boolean, rungs: readonly RungStanding[]): ClimberStanding {
  const unrecorded: number[] = [];
  for (const [index, standing] of rungs.entries()) {
    const effective = effectiveOutcome(standing);
    if (standing.recorded === null && effective !== null) unrecorded.push(index);
    if (effective === 'advanced') continue;
    let status: ClimberStatus;
    if (held) status = 'held';
    else if (effective === 'walled') status = 'walled';
    else status = standing.live.tally.pending > 0 ? 'climbing' : 'awaitingReview';
    return { status, current: index, unrecorded };
  }
  return { status: held ? 'held' : 'toppedOut', current: null, unrecorded };
}

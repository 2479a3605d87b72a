import { RATINGS, type Rating } from '../runs/run-states.js';

/** How many of a rung's runs must clear the floor (http-interface.md, Ladder: GateThreshold). */
export type GateThreshold = { kind: 'count'; runs: number } | { kind: 'fraction'; fraction: number };

/** The one rule a ladder applies at every rung. */
export interface Gate {
  floor: Rating;
  threshold: GateThreshold;
  /** A run whose build never loaded counts as broken without a review (default true). */
  unloadedCountsAsBroken: boolean;
  /** Decide on partial results instead of waiting for every run of the rung (default false). */
  earlyStop: boolean;
}

/**
 * The gate a ladder gets when its body names none: a run rated `scuffed` or better clears the
 * floor and one such run advances the climber, so a climber stops only where everything it
 * built was broken.
 */
export const DEFAULT_GATE: Gate = { floor: 'scuffed', threshold: { kind: 'count', runs: 1 }, unloadedCountsAsBroken: true, earlyStop: false };

export type GateOutcome = 'advance' | 'wall' | 'undecided';

/** The counts one decision is made from (ladder-progress.schema.json RungTally). */
export interface RungTally {
  /** Completed runs on the rung's cell. */
  completed: number;
  /** Completed runs the gate has a rating for. */
  judged: number;
  /** Completed runs still waiting on the requester's review. */
  unjudged: number;
  /** Judged runs rated at the floor or better. */
  passing: number;
  /** Runs the rung has yet to complete against its target. */
  pending: number;
  /** Passing runs the threshold demands, as a whole number of runs. */
  required: number;
}

/** What one completed run shows the gate. Failed and canceled jobs leave no completed run, so they never get here. */
export interface GateRun {
  /** Whether the run's build loaded (`validation.loaded`). */
  loaded: boolean;
  /** The requesting account's own review's functional rating, null when it has not reviewed the run. */
  ownRating: Rating | null;
  /** The validators' rating of a validator-rated run, null on a legacy run. */
  validatorRating: Rating | null;
}

/**
 * The rating the gate reads for one run: broken for an unloaded build (when the gate says so),
 * else the requester's own review, else the validators' rating of a validator-rated run; null
 * (unjudged) otherwise. Other accounts' reviews never count.
 */
export function gateRating(run: GateRun, unloadedCountsAsBroken: boolean): Rating | null {
  if (!run.loaded && unloadedCountsAsBroken) return 'broken';
  return run.ownRating ?? run.validatorRating;
}

/** Whether a rating clears the floor: the floor itself or better. */
export const clearsFloor = (rating: Rating, floor: Rating): boolean => RATINGS.indexOf(rating) <= RATINGS.indexOf(floor);

/** The fraction a threshold demands: clamped into 0..=1, with a non-finite value read as 0. */
export function effectiveFraction(fraction: number): number {
  if (!Number.isFinite(fraction)) return 0;
  return Math.min(1, Math.max(0, fraction));
}

// `fraction * total` in binary floating point lands a hair above a whole number (0.7 * 10),
// which a plain ceil would round up to a run nobody asked for.
const CEIL_SLACK = 1e-9;

/** Passing runs needed out of `total` completed runs. */
function requiredOf(threshold: GateThreshold, total: number): number {
  if (threshold.kind === 'count') return threshold.runs;
  return Math.max(0, Math.ceil(effectiveFraction(threshold.fraction) * total - CEIL_SLACK));
}

/** The evidence of one rung, already counted (by SQL on the board, from runs in tests). */
export interface RungEvidence {
  /** The rung's target number of runs. */
  desired: number;
  completed: number;
  judged: number;
  passing: number;
}

/**
 * The gate's verdict on one rung (open-points.md, Gate). Conservative both ways: `advance`
 * only if the runs in hand clear the threshold even if every unjudged and pending run came
 * back broken, `wall` only if the threshold stays out of reach even if they all came back
 * flawless. Without `earlyStop` nothing is decided until the rung's runs have all completed.
 */
export function decideRung(gate: Gate, evidence: RungEvidence): { tally: RungTally; outcome: GateOutcome } {
  const completed = evidence.completed;
  const judged = Math.min(evidence.judged, completed);
  const passing = Math.min(evidence.passing, judged);
  const unjudged = completed - judged;
  const pending = Math.max(0, evidence.desired - completed);
  // The rung ends with every pending run completed: the share is of that final count.
  const total = completed + pending;
  const required = requiredOf(gate.threshold, total);
  const tally: RungTally = { completed, judged, unjudged, passing, pending, required };

  if (!gate.earlyStop && pending > 0) return { tally, outcome: 'undecided' };
  if (passing >= required) return { tally, outcome: 'advance' };
  if (passing + unjudged + pending < required) return { tally, outcome: 'wall' };
  return { tally, outcome: 'undecided' };
}

/** Counts completed runs into evidence for `decideRung`. */
export function evidenceOf(gate: Gate, desired: number, runs: Iterable<GateRun>): RungEvidence {
  let completed = 0;
  let judged = 0;
  let passing = 0;
  for (const run of runs) {
    completed += 1;
    const rating = gateRating(run, gate.unloadedCountsAsBroken);
    if (rating === null) continue;
    judged += 1;
    if (clearsFloor(rating, gate.floor)) passing += 1;
  }
  return { desired, completed, judged, passing };
}

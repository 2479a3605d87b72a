import { describe, expect, it } from 'vitest';
import { decideRung, evidenceOf, type Gate, type GateOutcome, type GateRun, type GateThreshold } from '../../src/ladders/gate.js';

// Run fixtures, named by what the requesting account's gate should make of them.
const PASS: GateRun = { loaded: true, ownRating: 'great', validatorRating: null };
const AT_FLOOR: GateRun = { loaded: true, ownRating: 'scuffed', validatorRating: null };
const FAIL: GateRun = { loaded: true, ownRating: 'broken', validatorRating: null };
/** A legacy run the requester has not reviewed (another account's review never reaches the gate). */
const UNJUDGED: GateRun = { loaded: true, ownRating: null, validatorRating: null };
/** An unloaded build nobody reviewed. */
const UNLOADED: GateRun = { loaded: false, ownRating: null, validatorRating: null };
/** An unloaded build the requester rated flawless anyway. */
const UNLOADED_RATED: GateRun = { loaded: false, ownRating: 'flawless', validatorRating: null };
const VALIDATED_PASS: GateRun = { loaded: true, ownRating: null, validatorRating: 'passable' };
/** The validators passed it, but the requester's own review says broken: the review wins. */
const VALIDATED_OVERRULED: GateRun = { loaded: true, ownRating: 'broken', validatorRating: 'flawless' };

const gate = (threshold: GateThreshold, earlyStop = false, unloadedCountsAsBroken = true): Gate =>
  ({ floor: 'scuffed', threshold, earlyStop, unloadedCountsAsBroken });
const count = (runs: number): GateThreshold => ({ kind: 'count', runs });
const fraction = (value: number): GateThreshold => ({ kind: 'fraction', fraction: value });

function decide(rule: Gate, desired: number, runs: GateRun[]) {
  return decideRung(rule, evidenceOf(rule, desired, runs));
}

describe('the gate, case by case', () => {
  const rows: Array<[string, Gate, number, GateRun[], GateOutcome, Partial<Record<string, number>>?]> = [
    ['count: waits for every run without earlyStop, even when already clear', gate(count(2)), 4, [PASS, PASS], 'undecided', { pending: 2, required: 2 }],
    ['count: earlyStop advances once the runs in hand clear it', gate(count(2), true), 4, [PASS, PASS], 'advance'],
    ['count: earlyStop walls once the bar is out of reach', gate(count(2), true), 4, [FAIL, FAIL, FAIL], 'wall', { pending: 1, passing: 0 }],
    ['count: earlyStop stays undecided while it could go either way', gate(count(2), true), 4, [PASS, UNJUDGED], 'undecided'],
    ['count: all ran, one unjudged could still decide it', gate(count(2)), 3, [PASS, UNJUDGED, FAIL], 'undecided', { unjudged: 1, judged: 2 }],
    ['count: all ran and judged, short of the bar', gate(count(2)), 3, [PASS, FAIL, FAIL], 'wall'],
    ['count: all ran, the unjudged one cannot matter', gate(count(2)), 3, [PASS, AT_FLOOR, UNJUDGED], 'advance', { passing: 2 }],
    ['count 0 always advances', gate(count(0)), 2, [FAIL, FAIL], 'advance', { required: 0 }],
    ['count above the rung target walls once all ran', gate(count(3)), 2, [PASS, PASS], 'wall'],
    ['unloaded builds count as broken by default', gate(count(2)), 2, [PASS, UNLOADED], 'wall', { judged: 2, unjudged: 0 }],
    ['unloaded builds wait for a review when the gate says so', gate(count(2), false, false), 2, [PASS, UNLOADED], 'undecided', { judged: 1, unjudged: 1 }],
    ['an unloaded build is broken even when reviewed', gate(count(2)), 2, [PASS, UNLOADED_RATED], 'wall'],
    ['a reviewed unloaded build counts its review when unloaded builds are not broken', gate(count(2), false, false), 2, [PASS, UNLOADED_RATED], 'advance'],
    ['a validator-rated run uses the validators until the requester reviews it', gate(count(1)), 1, [VALIDATED_PASS], 'advance', { judged: 1 }],
    ['the requester\'s review overrules the validators', gate(count(1)), 1, [VALIDATED_OVERRULED], 'wall'],
    ['fraction: half of four', gate(fraction(0.5)), 4, [PASS, PASS, FAIL, FAIL], 'advance', { required: 2 }],
    ['fraction: one of four is short of half', gate(fraction(0.5)), 4, [PASS, FAIL, FAIL, FAIL], 'wall'],
    ['fraction: earlyStop counts against the final total', gate(fraction(0.75), true), 4, [PASS, PASS, PASS], 'advance', { required: 3, pending: 1 }],
    ['fraction: earlyStop walls when even flawless remainders fall short', gate(fraction(0.75), true), 4, [FAIL, FAIL], 'wall'],
    ['fraction: earlyStop with an unjudged run and pending ones is undecided', gate(fraction(0.5), true), 4, [PASS, UNJUDGED], 'undecided'],
    ['fraction above 1 reads as 1: all must clear', gate(fraction(1.5)), 2, [PASS, FAIL], 'wall', { required: 2 }],
    ['fraction above 1 reads as 1: all clear', gate(fraction(1.5)), 2, [PASS, PASS], 'advance'],
    ['fraction below 0 reads as 0: always advances', gate(fraction(-1)), 2, [FAIL, FAIL], 'advance', { required: 0 }],
    ['a non-finite fraction reads as 0', gate(fraction(Number.NaN)), 2, [FAIL, FAIL], 'advance', { required: 0 }],
    ['an infinite fraction reads as 0, not 1', gate(fraction(Number.POSITIVE_INFINITY)), 1, [FAIL], 'advance'],
    // 0.07 * 100 is 7.000000000000001 in binary floating point.
    ['fraction 0.07 of 100 demands 7, not 8', gate(fraction(0.07)), 100, [...Array(7).fill(PASS), ...Array(93).fill(FAIL)], 'advance', { required: 7 }],
    ['fraction 0.25 of 10 demands 3 (2.5 rounds up)', gate(fraction(0.25)), 10, [PASS, PASS, ...Array(8).fill(FAIL)], 'wall', { required: 3 }],
    ['runs beyond the target all count', gate(fraction(0.5)), 2, [PASS, FAIL, FAIL, FAIL], 'wall', { completed: 4, pending: 0, required: 2 }],
  ];

  it.each(rows)('%s', (_name, rule, desired, runs, outcome, tally = {}) => {
    const verdict = decide(rule, desired, runs);
    expect(verdict.outcome).toBe(outcome);
    expect(verdict.tally).toMatchObject(tally);
    const { completed, judged, unjudged, passing } = verdict.tally;
    expect(judged + unjudged).toBe(completed);
    expect(passing).toBeLessThanOrEqual(judged);
  });
});

/**
 * The contract's definition, written out the long way: the gate advances only if every way the
 * unjudged and pending runs could come back still clears the bar, walls only if none does.
 * Compares `passing >= fraction * completed` on the rung's final count, without rounding.
 */
function oracle(rule: Gate, desired: number, runs: GateRun[]): GateOutcome {
  const rating = (run: GateRun) => (!run.loaded && rule.unloadedCountsAsBroken ? 'broken' : (run.ownRating ?? run.validatorRating));
  const order = ['flawless', 'great', 'passable', 'scuffed', 'broken'];
  const passing = runs.filter((run) => { const r = rating(run); return r !== null && order.indexOf(r) <= order.indexOf(rule.floor); }).length;
  const open = runs.filter((run) => rating(run) === null).length;
  const pending = Math.max(0, desired - runs.length);
  if (!rule.earlyStop && pending > 0) return 'undecided';
  const total = runs.length + pending;
  const clears = (count: number) => {
    if (rule.threshold.kind === 'count') return count >= rule.threshold.runs;
    const f = rule.threshold.fraction;
    const share = Number.isFinite(f) ? Math.min(1, Math.max(0, f)) : 0;
    return count >= share * total - 1e-9;
  };
  const worlds = Array.from({ length: open + pending + 1 }, (_, extra) => clears(passing + extra));
  if (worlds.every(Boolean)) return 'advance';
  if (!worlds.some(Boolean)) return 'wall';
  return 'undecided';
}

describe('the gate over every combination', () => {
  const thresholds = [count(0), count(1), count(2), count(4), fraction(0), fraction(0.25), fraction(0.5), fraction(2 / 3), fraction(1), fraction(1.5), fraction(-0.5), fraction(Number.NaN)];
  const mixes: GateRun[][] = [];
  for (const passes of [0, 1, 2]) for (const fails of [0, 1]) for (const unjudged of [0, 1, 2]) for (const unloaded of [0, 1]) for (const validated of [0, 1]) {
    mixes.push([
      ...Array(passes).fill(PASS), ...Array(fails).fill(FAIL), ...Array(unjudged).fill(UNJUDGED),
      ...Array(unloaded).fill(UNLOADED), ...Array(validated).fill(VALIDATED_PASS),
    ]);
  }

  it('agrees with the long-hand definition for each threshold kind, earlyStop, unloaded rule, pending and unjudged mix', () => {
    let checked = 0;
    const seen = new Set<string>();
    for (const threshold of thresholds) for (const earlyStop of [false, true]) for (const unloadedBroken of [false, true]) {
      const rule = gate(threshold, earlyStop, unloadedBroken);
      for (const runs of mixes) for (const pending of [0, 1, 3]) {
        const desired = runs.length + pending;
        const verdict = decide(rule, desired, runs);
        expect(verdict.outcome, JSON.stringify({ threshold, earlyStop, unloadedBroken, runs: runs.length, pending })).toBe(oracle(rule, desired, runs));
        seen.add(`${threshold.kind}:${earlyStop}:${verdict.outcome}`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(3000);
    // The sweep exercises every verdict under both kinds and both earlyStop settings.
    for (const kind of ['count', 'fraction']) for (const earlyStop of [false, true]) for (const outcome of ['advance', 'wall', 'undecided']) {
      expect(seen).toContain(`${kind}:${earlyStop}:${outcome}`);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { climberStanding, type RecordedVerdict, type RungStanding } from '../../src/ladders/climber-standing.js';
import type { GateOutcome } from '../../src/ladders/gate.js';

const tally = (pending: number, unjudged: number) => ({ completed: 2, judged: 2 - unjudged, unjudged, passing: 0, pending, required: 1 });
const live = (outcome: GateOutcome, pending = 0, unjudged = 0): RungStanding => ({ recorded: null, live: { tally: tally(pending, unjudged), outcome } });
const stored = (outcome: RecordedVerdict['outcome'], override: RecordedVerdict['overrideOutcome'] = null, now: GateOutcome = 'undecided'): RungStanding => ({
  recorded: { outcome, decidedAt: '2026-11-23T00:00:00.000Z', overrideOutcome: override, overrideAt: override ? '2026-11-23T01:00:00.000Z' : null },
  live: { tally: tally(0, 0), outcome: now },
});

describe('climber status', () => {
  it.each<[string, boolean, RungStanding[], string, number | null, number[]]>([
    ['climbing while the first rung still has runs to complete', false, [live('undecided', 2), live('undecided', 3)], 'climbing', 0, []],
    ['awaiting review when the rung ran everything and waits on a review', false, [live('undecided', 0, 1), live('undecided', 3)], 'awaitingReview', 0, []],
    ['a live advance moves it up without being stored', false, [live('advance'), live('undecided', 1)], 'climbing', 1, [0]],
    ['walled at the first rung the gate walls', false, [stored('advanced'), live('wall'), live('advance')], 'walled', 1, [1]],
    ['a promote override lets it past a stored wall', false, [stored('walled', 'advanced'), live('undecided', 0, 2)], 'awaitingReview', 1, []],
    ['a wall override stops it at a stored advance', false, [stored('advanced', 'walled'), live('advance')], 'walled', 0, []],
    ['a stored verdict is not recomputed from later evidence', false, [stored('walled', null, 'advance')], 'walled', 0, []],
    ['topped out when every rung advanced', false, [stored('advanced'), live('advance')], 'toppedOut', null, [1]],
    ['held wins and keeps its place', true, [stored('advanced'), live('undecided', 1)], 'held', 1, []],
    ['held even past the top', true, [stored('advanced')], 'held', null, []],
    ['a ladder with no rungs tops everyone out', false, [], 'toppedOut', null, []],
  ])('%s', (_name, held, rungs, status, current, unrecorded) => {
    expect(climberStanding(held, rungs)).toEqual({ status, current, unrecorded });
  });
});

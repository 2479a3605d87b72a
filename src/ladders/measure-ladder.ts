import type { BufferTarget } from '../coverage/buffer-target.js';
import { cellsParam, type CellCounts } from '../coverage/cell-counts.js';
import type { CoverageCell, Pin } from '../coverage/coverage-cells.js';
import { occupancyOf, remainingOf, targetOf, uniqueCells, type OwnedCell } from '../coverage/schedule-owner.js';
import { decidedOnPin, type StoredVerdict } from '../db/ladder-verdicts-table.js';
import type { Ladder, Rung } from '../db/ladders-table.js';
import { climberStanding, type ClimberStanding, type RungStanding } from './climber-standing.js';
import { decideRung } from './gate.js';
import { ladderClimbers, type Climber } from './ladder-climbers.js';
import type { LadderContext } from './ladder-context.js';

/** One climber on one rung: the cell it fills there, its counts, and what the gate makes of it. */
export interface ClimberRung {
  rung: Rung;
  position: number;
  cell: CoverageCell;
  /** Counts as the ladder's buffer sees them (`unreviewed` without the unloaded builds below). */
  counts: CellCounts;
  /** Unreviewed unloaded builds the gate rated broken. */
  unloadedUnreviewed: number;
  standing: RungStanding;
}

export interface MeasuredClimber {
  climber: Climber;
  rungs: ClimberRung[];
  standing: ClimberStanding;
  /** Verdicts on this climber stored against a pin its rung no longer has (history, never governing). */
  staleVerdicts: StoredVerdict[];
  /** Every verdict stored against a rung's current pin, by rung id. */
  verdicts: Map<string, StoredVerdict>;
}

export interface MeasuredLadder {
  ladder: Ladder;
  /** In feeding order. */
  climbers: MeasuredClimber[];
  target: BufferTarget;
  /** Every rung a climber reached, in emission order, each cell once: what the buffer and the queue cover. */
  review: OwnedCell[];
  /** In-flight jobs plus unreviewed completed runs over `review` (the original's `runs_outstanding`). */
  occupancy: number;
  unreviewed: number;
}

export const pinOfRung = (rung: Rung): Pin => ({ slug: rung.slug, version: rung.version, variant: rung.variant, engine: rung.engine });
export const desiredOf = (ladder: Ladder, rung: Rung) => rung.runs ?? ladder.runsPerCell;

/** Every climber x rung cell, climber by climber in feeding order, rungs low to high. */
export function ladderCells(ladder: Ladder, climbers: Climber[]): CoverageCell[] {
  return climbers.flatMap(({ combination }) =>
    ladder.rungs.map((rung) => ({ pin: pinOfRung(rung), combination, desired: desiredOf(ladder, rung) })));
}

/** The rungs a climber has reached: up to and including the one it stands on, or all of them once it topped out. */
const reachedRungs = (measured: MeasuredClimber): ClimberRung[] =>
  measured.standing.current === null ? measured.rungs : measured.rungs.slice(0, measured.standing.current + 1);

function verdictsOf(stored: StoredVerdict[]) {
  const byClimber = new Map<string, StoredVerdict[]>();
  for (const verdict of stored) {
    const list = byClimber.get(verdict.climberKey) ?? [];
    list.push(verdict);
    byClimber.set(verdict.climberKey, list);
  }
  return byClimber;
}

/**
 * Counts every cell of the ladder for the requester and works out where each climber stands.
 * Reads only: a verdict resolved here is reported unrecorded, and only a top-up stores it.
 */
export async function measureLadder(ctx: LadderContext, accountId: string, ladder: Ladder): Promise<MeasuredLadder> {
  const climbers = await ladderClimbers(ctx, ladder);
  const cells = ladderCells(ladder, climbers);
  const [counts, evidence, verdicts, target] = await Promise.all([
    ctx.coverage.counter.count(cells, accountId),
    ctx.evidence.of(cellsParam(cells), cells.length, ladder.gate, accountId),
    ctx.verdicts.list(ladder.id),
    targetOf(ctx.coverage, accountId, ladder),
  ]);
  const stored = verdictsOf(verdicts);
  const rungCount = ladder.rungs.length;
  const pinned = new Map(ladder.rungs.map((rung) => [rung.id, rung]));
  const measured = climbers.map((climber, c): MeasuredClimber => {
    const own = stored.get(climber.combination.key) ?? [];
    const verdicts = new Map<string, StoredVerdict>();
    const staleVerdicts: StoredVerdict[] = [];
    for (const verdict of own) {
      const rung = pinned.get(verdict.rungId);
      if (rung && decidedOnPin(verdict, rung) && !verdicts.has(rung.id)) verdicts.set(rung.id, verdict);
      else staleVerdicts.push(verdict);
    }
    const rungs = ladder.rungs.map((rung, position): ClimberRung => {
      const i = c * rungCount + position;
      const cell = cells[i]!;
      const recorded = verdicts.get(rung.id) ?? null;
      const { unloadedUnreviewed, ...gateEvidence } = evidence[i]!;
      return {
        rung,
        position,
        cell,
        // An unloaded build the gate already rated broken waits on no review, so it holds no buffer slot.
        counts: { ...counts[i]!, unreviewed: Math.max(0, counts[i]!.unreviewed - unloadedUnreviewed) },
        unloadedUnreviewed,
        standing: { recorded, live: decideRung(ladder.gate, { desired: cell.desired, ...gateEvidence }) },
      };
    });
    const standing = climberStanding(climber.steering.held, rungs.map((rung) => rung.standing));
    return { climber, rungs, standing, staleVerdicts, verdicts };
  });
  const reached = reachedCells(measured, ladder.outerAxis);
  const check = await ctx.coverage.launchability(reached.map((rung) => rung.cell));
  const review = uniqueCells(reached.map((rung) => ownedCell(rung, check.unlaunchable(rung.cell))));
  const unreviewed = review.reduce((sum, owned) => sum + owned.counts.unreviewed, 0);

  return {
    ladder,
    climbers: measured,
    target,
    review,
    occupancy: occupancyOf(review),
    unreviewed,
  };
}

/** A climber's rung as a schedule owner's cell. */
export const ownedCell = (rung: ClimberRung, unlaunchable: string | null): OwnedCell =>
  ({ cell: rung.cell, counts: rung.counts, unlaunchable, rungId: rung.rung.id });

/**
 * The reached cells of every climber in emission order (`rung`: lowest rungs first, every
 * climber's before anyone's next; `combination`: climber by climber): what the buffer and
 * the queue cover. A cell two rungs name is one cell; `uniqueCells` keeps its first.
 */
function reachedCells(climbers: MeasuredClimber[], outerAxis: Ladder['outerAxis']): ClimberRung[] {
  const reached = climbers.flatMap(reachedRungs);
  return outerAxis === 'rung' ? reached.sort((a, b) => a.position - b.position) : reached;
}

/**
 * The cells a top-up may launch, in emission order: each climber's current rung while it is
 * climbing (never a held, walled, topped out or review-waiting climber). `rung` brings the
 * lowest rungs first, every climber's before anyone's next; `combination` goes climber by
 * climber; within either, the feeding order.
 */
export function launchableCells(measured: MeasuredLadder): ClimberRung[] {
  const current = measured.climbers.flatMap((climber) =>
    climber.standing.status === 'climbing' && climber.standing.current !== null ? [climber.rungs[climber.standing.current]!] : []);
  if (measured.ladder.outerAxis === 'rung') current.sort((a, b) => a.position - b.position);
  return current.filter((rung) => remainingOf(rung.cell, rung.counts) > 0);
}

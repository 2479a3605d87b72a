/**
 * Cells (shared by plans and ladders): a pinned case crossed with a resolved combination,
 * with the number of runs wanted. Pins and members are de-duplicated by identity (first
 * occurrence wins) and crossed in emission order, which is also queue order.
 */
import type { PinnedCaseT } from '../api/schemas/coverage.js';
import { isKnownEngine, NO_ENGINE } from '../catalog/known-engines.js';
import { badRequest } from '../errors.js';
import { combinationView, type ResolvedCombination } from './combinations.js';

/** A pinned case as cells use it: the engine is always named (`none` when the pin has none). */
export interface Pin {
  slug: string;
  version: string;
  variant: string;
  engine: string;
}

export interface CoverageCell {
  pin: Pin;
  combination: ResolvedCombination;
  /** Runs wanted in this cell. */
  desired: number;
}

export const pinOf = (pinned: PinnedCaseT): Pin => ({
  slug: pinned.slug, version: pinned.version, variant: pinned.variant, engine: pinned.engine ?? NO_ENGINE,
});

/** Checks written pins (`field` names them in the 400): only the engine slug can be refused at save. */
export function checkPins(pins: PinnedCaseT[], field: string): PinnedCaseT[] {
  return pins.map((pin, index) => {
    const engine = pin.engine ?? null;
    if (engine !== null && !isKnownEngine(engine)) {
      throw badRequest(`${field}[${index}].engine "${engine}" is not a known engine (none, simple-2d, structured-2d, decoupled-2d, decoupled-3d).`);
    }
    return engine === null || engine === NO_ENGINE
      ? { slug: pin.slug, version: pin.version, variant: pin.variant }
      : { slug: pin.slug, version: pin.version, variant: pin.variant, engine };
  });
}

const pinKey = (pin: Pin) => `${pin.slug}|${pin.version}|${pin.variant}|${pin.engine}`;

export function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export const uniquePins = (pins: Pin[]) => uniqueBy(pins, pinKey);
export const uniqueCombinations = (combos: ResolvedCombination[]) => uniqueBy(combos, (combo) => combo.key);

/**
 * Every pin x combination cell, `pinsOuter` deciding the nesting: true finishes one case
 * across every combination before the next case, false one combination across every case.
 */
export function crossCells(pins: Pin[], combos: ResolvedCombination[], pinsOuter: boolean, desired: (pin: Pin) => number): CoverageCell[] {
  const cells: CoverageCell[] = [];
  if (pinsOuter) {
    for (const pin of pins) for (const combination of combos) cells.push({ pin, combination, desired: desired(pin) });
  } else {
    for (const combination of combos) for (const pin of pins) cells.push({ pin, combination, desired: desired(pin) });
  }
  return cells;
}

/** The identity fields a cell is reported with (matrix cells, top-up answers). */
export const cellView = (cell: CoverageCell) => ({ ...cell.pin, ...combinationView(cell.combination) });

/**
 * Cells (shared by plans and ladders): a pinned case crossed with a resolved combination,
 * with the number of runs wanted. Pins and members are de-duplicated by identity (first
 * occurrence wins) and crossed in emission order, which is also queue order.
 */
import type { PinnedCaseT } from '../contract/coverage.js';
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
/** Why a member naming the same cell as an earlier one is not launched (the original system's words). */
export const SAME_RUNS_REASON =
  'another member of this plan already asks for exactly these runs (same case, same launch model, and for a gg member the same configuration and agents)';

/**
 * Members de-duplicated on what was written (`key`: harness, model, provider; a gg member's
 * configuration and bindings), first occurrence winning. A later member that names the same
 * cells as an earlier one (same launch model, configuration and bound models) is kept, so
 * the reviewer still sees it, and reported unlaunchable: launching both would buy one cell's
 * runs twice.
 */
export function uniqueCombinations(combos: ResolvedCombination[]): ResolvedCombination[] {
  const cells = new Set<string>();
  return uniqueBy(combos, (combo) => combo.key).map((combo) => {
    if (combo.unlaunchable !== null) return combo;
    if (!cells.has(combo.cellIdentity)) {
      cells.add(combo.cellIdentity);
      return combo;
    }
    return { ...combo, unlaunchable: SAME_RUNS_REASON };
  });
}

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

/** The identity fields a cell is reported with on the matrix. */
export const cellView = (cell: CoverageCell) => ({ ...cell.pin, ...combinationView(cell.combination) });

/**
 * What a cell's runs are counted by: its pin and its member's cell identity (harness, launch
 * model, gg configuration and bound models). Two members, or two rungs, naming one cell
 * share it, and a cell is counted, launched and queued once.
 */
export const cellKeyOf = ({ pin, combination }: CoverageCell) => `${pinKey(pin)}|${combination.cellIdentity}`;

/**
 * A cell as a top-up answer or a queue entry names it (the console's names): pin, harness,
 * model, and the provider and gg fields only when set.
 */
export function cellRef({ pin, combination: c }: CoverageCell) {
  return {
    slug: pin.slug,
    version: pin.version,
    variant: pin.variant,
    engine: pin.engine,
    harness: c.harness,
    model: c.model,
    ...(c.provider === null ? {} : { provider: c.provider }),
    ...ggRef(c),
  };
}

/** A member's gg fields as a top-up answer or a queue entry carries them: absent on a harness member, slot models only when bound. */
export const ggRef = (c: ResolvedCombination) => ({
  ...(c.ggConfigId === null ? {} : { ggConfigId: c.ggConfigId }),
  ...(c.ggConfigName === null ? {} : { ggConfigName: c.ggConfigName }),
  ...(Object.keys(c.ggSlotModels).length === 0 ? {} : { ggSlotModels: c.ggSlotModels }),
});

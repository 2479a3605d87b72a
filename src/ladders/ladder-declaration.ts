import type { LadderBodyT, ScheduleBodyT } from '../api/schemas/ladders.js';
import { isKnownEngine, NO_ENGINE, unknownEngine } from '../catalog/known-engines.js';
import { compareVersions } from '../catalog/compare-versions.js';
import type { BufferTarget, Ladder, LadderDeclaration, LadderSchedule, RungInput, StoredCombo } from '../db/ladders-table.js';
import { badRequest } from '../errors.js';
import type { LaunchCatalog } from '../jobs/launch-catalog.js';
import { DEFAULT_GATE, type Gate } from './gate.js';

/** Test types that never produce a rating, so no gate could ever decide a rung of them. */
const UNGATEABLE_TEST_TYPES = new Set(['performance', 'game-jam']);

export interface DeclarationDeps {
  catalog: LaunchCatalog;
  /** Ingested versions of a case (to find a rung's test type when its own version is not ingested). */
  versionsOf(slug: string): { version: string }[];
  /** Checks one combination and answers it as stored; throws the 400 that refuses it. */
  combo(accountId: string, combo: NonNullable<LadderBodyT['combos']>[number], where: string): StoredCombo;
}

/** A schedule written field by field over a base (the stored one, or a new ladder's defaults). */
export function mergeSchedule(base: LadderSchedule, body: ScheduleBodyT): LadderSchedule {
  return {
    outerAxis: body.outerAxis ?? base.outerAxis,
    paused: body.paused ?? base.paused,
    autoTopUp: body.autoTopUp ?? base.autoTopUp,
    bufferTarget: body.bufferTarget === undefined ? base.bufferTarget : bufferTargetOf(body.bufferTarget),
  };
}

/** The schema defaults a written schedule starts from. */
const SCHEMA_SCHEDULE: LadderSchedule = { outerAxis: 'rung', paused: false, autoTopUp: false, bufferTarget: null };
/** A ladder created without a schedule is disabled and tops itself up once enabled (http-interface.md, Ladder). */
const NEW_LADDER_SCHEDULE: LadderSchedule = { ...SCHEMA_SCHEDULE, paused: true, autoTopUp: true };

/** The schedule a new ladder starts with. */
export const initialSchedule = (body: ScheduleBodyT | undefined): LadderSchedule =>
  body === undefined ? NEW_LADDER_SCHEDULE : mergeSchedule(SCHEMA_SCHEDULE, body);

/** A bare integer is the bounded shape; null inherits. */
function bufferTargetOf(value: NonNullable<ScheduleBodyT['bufferTarget']> | null): BufferTarget | null {
  if (value === null) return null;
  return typeof value === 'number' ? { kind: 'bounded', runs: value } : value;
}

const gateOf = (body: LadderBodyT['gate']): Gate =>
  body === undefined
    ? DEFAULT_GATE
    : { floor: body.floor, threshold: body.threshold, unloadedCountsAsBroken: body.unloadedCountsAsBroken ?? true, earlyStop: body.earlyStop ?? false };

/**
 * Checks a ladder body and splits it into the declaration and the rungs. `current` is the
 * stored ladder on a PUT: a rung that names an id must name one of its rungs, once.
 */
export function readDeclaration(deps: DeclarationDeps, accountId: string, body: LadderBodyT, current: Ladder | null): { declaration: LadderDeclaration; rungs: RungInput[] } {
  const currentIds = new Set(current?.rungs.map((rung) => rung.id) ?? []);
  const seen = new Set<string>();
  const rungs = body.rungs.map((rung, index): RungInput => {
    const where = `body.rungs[${index}]`;
    if (rung.id !== undefined) {
      if (!current) throw badRequest(`${where}.id must be omitted on create: rung ids are minted by the server.`);
      if (!currentIds.has(rung.id)) throw badRequest(`${where}.id "${rung.id}" is not a rung of this ladder; omit the id to add a rung.`);
      if (seen.has(rung.id)) throw badRequest(`${where}.id "${rung.id}" appears twice.`);
      seen.add(rung.id);
    }
    const engine = rung.engine || NO_ENGINE;
    if (!isKnownEngine(engine)) throw badRequest(`${where}.engine: ${unknownEngine(engine).message}`);
    const testType = rungTestType(deps, rung.slug, rung.version);
    if (testType !== null && UNGATEABLE_TEST_TYPES.has(testType)) {
      throw badRequest(`${where} (${rung.slug} ${rung.version}) is a ${testType} case, which never produces a rating; a ladder rung must be a rated case.`);
    }
    return {
      ...(rung.id === undefined ? {} : { id: rung.id }),
      slug: rung.slug,
      version: rung.version,
      variant: rung.variant,
      engine,
      runs: rung.runs ?? null,
    };
  });
  return {
    rungs,
    declaration: {
      name: body.name,
      runsPerCell: body.runsPerCell,
      gate: gateOf(body.gate),
      comboGroupIds: [...new Set(body.comboGroupIds ?? [])],
      combos: (body.combos ?? []).map((combo, index) => deps.combo(accountId, combo, `body.combos[${index}]`)),
    },
  };
}

/**
 * The test type of a rung's case: its pinned version's when ingested, else the newest ingested
 * version's. Null for a case nothing is known about: such a pin is accepted and reported by
 * the board as unlaunchable, as a plan's is.
 */
function rungTestType(deps: DeclarationDeps, slug: string, version: string): string | null {
  const pinned = deps.catalog.version(slug, version);
  if (pinned) return pinned.testType;
  const newest = deps.versionsOf(slug).map((v) => v.version).sort(compareVersions).at(-1);
  return newest === undefined ? null : (deps.catalog.version(slug, newest)?.testType ?? null);
}

/** `POST /ladders/{id}/rungs/order`: the body must name every current rung exactly once. */
export function checkPermutation(ladder: Ladder, rungIds: string[]): void {
  const current = new Set(ladder.rungs.map((rung) => rung.id));
  const seen = new Set<string>();
  for (const [index, id] of rungIds.entries()) {
    if (!current.has(id)) throw badRequest(`body.rungIds[${index}] "${id}" is not a rung of this ladder; adding a rung goes through PUT /ladders/${ladder.id}.`);
    if (seen.has(id)) throw badRequest(`body.rungIds[${index}] "${id}" appears twice; the order must name each rung once.`);
    seen.add(id);
  }
  if (seen.size !== current.size) {
    const missing = [...current].filter((id) => !seen.has(id));
    throw badRequest(`body.rungIds leaves out ${missing.map((id) => `"${id}"`).join(', ')}; the order must name all ${current.size} rungs (dropping one goes through PUT).`);
  }
}

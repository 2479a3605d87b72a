import type { LadderBodyT, ScheduleBodyT } from '../contract/ladders.js';
import { isKnownEngine, NO_ENGINE, unknownEngine } from '../catalog/known-engines.js';
import { compareVersions } from '../catalog/compare-versions.js';
import { checkCombinations } from '../coverage/combinations.js';
import { ggConfigLookup } from '../coverage/coverage-context.js';
import { checkGroupIds } from '../coverage/coverage-plans.js';
import { mergeSchedule } from '../coverage/schedule-owner.js';
import type { Ladder, LadderDeclaration, LadderSchedule, RungInput } from '../db/ladders-table.js';
import { badRequest } from '../errors.js';
import { UNRATED_TEST_TYPES } from '../runs/run-states.js';
import { DEFAULT_GATE, type Gate } from './gate.js';
import type { LadderContext } from './ladder-context.js';

/** Test types that never produce a rating, so no gate could ever decide a rung of them. */
const UNGATEABLE_TEST_TYPES = new Set<string>(UNRATED_TEST_TYPES);

/** The schema defaults a written schedule starts from. */
const SCHEMA_SCHEDULE: LadderSchedule = { outerAxis: 'rung', paused: false, autoTopUp: false, bufferTarget: null };
/** A ladder created without a schedule is disabled and tops itself up once enabled (http-interface.md, Ladder). */
const NEW_LADDER_SCHEDULE: LadderSchedule = { ...SCHEMA_SCHEDULE, paused: true, autoTopUp: true };

/** The schedule a new ladder starts with. */
export const initialSchedule = (body: ScheduleBodyT | undefined): LadderSchedule =>
  body === undefined ? NEW_LADDER_SCHEDULE : mergeSchedule(SCHEMA_SCHEDULE, body, 'body.schedule');

/**
 * A run target as the original reads one (`clamp_runs_per_cell`): 0 is read as 1, a cell
 * nobody wants runs of being a plan to fix; above the ceiling the schema answers 400.
 */
const atLeastOne = (runs: number) => Math.max(1, runs);

const gateOf = (body: LadderBodyT['gate']): Gate => {
  if (body === undefined) return DEFAULT_GATE;
  const threshold = body.threshold.kind === 'count' ? { kind: 'count' as const, runs: atLeastOne(body.threshold.runs) } : body.threshold;
  return { floor: body.floor, threshold, unloadedCountsAsBroken: body.unloadedCountsAsBroken ?? true, earlyStop: body.earlyStop ?? false };
};

/**
 * Checks a ladder body and splits it into the declaration and the rungs. `current` is the
 * stored ladder on a PUT: a rung that names an id must name one of its rungs, once.
 */
export async function readDeclaration(
  ctx: LadderContext, accountId: string, body: LadderBodyT, current: Ladder | null,
): Promise<{ declaration: LadderDeclaration; rungs: RungInput[] }> {
  const { coverage } = ctx;
  const configs = await ggConfigLookup(coverage.jobs, accountId);
  const currentIds = new Set(current?.rungs.map((rung) => rung.id) ?? []);
  const seen = new Set<string>();
  const rungs: RungInput[] = [];
  for (const [index, rung] of body.rungs.entries()) {
    const where = `body.rungs[${index}]`;
    if (rung.id !== undefined) {
      if (!current) throw badRequest(`${where}.id must be omitted on create: rung ids are minted by the server.`);
      if (!currentIds.has(rung.id)) throw badRequest(`${where}.id "${rung.id}" is not a rung of this ladder; omit the id to add a rung.`);
      if (seen.has(rung.id)) throw badRequest(`${where}.id "${rung.id}" appears twice.`);
      seen.add(rung.id);
    }
    const engine = rung.engine || NO_ENGINE;
    if (!isKnownEngine(engine)) throw badRequest(`${where}.engine: ${unknownEngine(engine).message}`);
    const testType = await rungTestType(ctx, rung.slug, rung.version);
    if (testType !== null && UNGATEABLE_TEST_TYPES.has(testType)) {
      throw badRequest(`${where} (${rung.slug} ${rung.version}) is a ${testType} case, which never produces a rating; a ladder rung must be a rated case.`);
    }
    rungs.push({
      ...(rung.id === undefined ? {} : { id: rung.id }),
      slug: rung.slug,
      version: rung.version,
      variant: rung.variant,
      engine,
      runs: rung.runs === undefined || rung.runs === null ? null : atLeastOne(rung.runs),
    });
  }
  return {
    rungs,
    declaration: {
      name: body.name,
      runsPerCell: atLeastOne(body.runsPerCell),
      gate: gateOf(body.gate),
      comboGroupIds: await checkGroupIds(coverage, accountId, body.comboGroupIds ?? [], 'combo', 'body.comboGroupIds'),
      combos: checkCombinations(body.combos ?? [], 'body.combos', (rowId) => configs(rowId) !== null),
    },
  };
}

/**
 * The test type of a rung's case: its pinned version's when ingested, else the newest ingested
 * version's. Null for a case nothing is known about: such a pin is accepted and reported by
 * the board as unlaunchable, as a plan's is.
 */
async function rungTestType(ctx: LadderContext, slug: string, version: string): Promise<string | null> {
  const { catalog } = ctx.coverage.jobs;
  const pinned = await catalog.version(slug, version);
  if (pinned) return pinned.testType;
  const newest = (await ctx.index.versionsOf(slug)).map((v) => v.version).sort(compareVersions).at(-1);
  return newest === undefined ? null : ((await catalog.version(slug, newest))?.testType ?? null);
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

import type { ClimberBodyT, LadderBodyT, ScheduleBodyT } from '../contract/ladders.js';
import { checkCombinations, combinationView, resolveCombination } from '../coverage/combinations.js';
import { ggConfigLookup } from '../coverage/coverage-context.js';
import type { ClimberSteering } from '../db/ladder-climbers-table.js';
import type { Ladder } from '../db/ladders-table.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { ladderClimbers } from './ladder-climbers.js';
import type { LadderContext } from './ladder-context.js';
import { scheduleChange } from '../coverage/schedule-owner.js';
import { ladderOrigin } from '../db/ladders-table.js';
import { checkPermutation, initialSchedule, readDeclaration } from './ladder-declaration.js';

/** The account's ladder, or 404 (another account's id included: never 403). */
export async function requireLadder(ctx: LadderContext, accountId: string, id: string): Promise<Ladder> {
  const ladder = await ctx.ladders.get(accountId, id);
  if (!ladder) throw notFound(`No ladder ${id}.`);
  return ladder;
}

export const scheduleView = ({ outerAxis, paused, autoTopUp, bufferTarget }: Ladder) => ({ outerAxis, paused, autoTopUp, bufferTarget });

/** The ladder as read: declaration and schedule flattened, gg members named and given their root model. */
export async function ladderView(ctx: LadderContext, ladder: Ladder) {
  const configs = await ggConfigLookup(ctx.coverage.jobs, ladder.accountId);
  return {
    id: ladder.id,
    name: ladder.name,
    runsPerCell: ladder.runsPerCell,
    gate: ladder.gate,
    comboGroupIds: ladder.comboGroupIds,
    combos: ladder.combos.map((combo) => combinationView(resolveCombination(combo, configs))),
    rungs: ladder.rungs,
    updatedAt: ladder.updatedAt,
    ...scheduleView(ladder),
  };
}

export const listLadders = async (ctx: LadderContext, accountId: string) =>
  Promise.all((await ctx.ladders.list(accountId)).map((ladder) => ladderView(ctx, ladder)));

export async function createLadder(ctx: LadderContext, accountId: string, body: LadderBodyT) {
  const { declaration, rungs } = await readDeclaration(ctx, accountId, body, null);
  return ladderView(ctx, await ctx.ladders.create(accountId, declaration, rungs, initialSchedule(body.schedule)));
}

/** Rungs are reconciled by id, so kept rungs keep their verdicts; a PUT without `schedule` leaves it alone, one with it changes the fields it names. */
export async function updateLadder(ctx: LadderContext, accountId: string, id: string, body: LadderBodyT) {
  const current = await requireLadder(ctx, accountId, id);
  const { declaration, rungs } = await readDeclaration(ctx, accountId, body, current);
  const schedule = body.schedule === undefined ? null : scheduleChange(body.schedule, 'body.schedule');
  const updated = await ctx.ladders.update(accountId, id, declaration, rungs, schedule);
  if (!updated) throw notFound(`No ladder ${id}.`);
  return ladderView(ctx, updated);
}

export async function deleteLadder(ctx: LadderContext, accountId: string, id: string): Promise<void> {
  if (!(await ctx.ladders.delete(accountId, id))) throw notFound(`No ladder ${id}.`);
}

export const getSchedule = async (ctx: LadderContext, accountId: string, id: string) => scheduleView(await requireLadder(ctx, accountId, id));

/** `PUT /ladders/{id}/schedule`: absent fields keep their value, except `bufferTarget`, which inherits when absent or null. */
export async function putSchedule(ctx: LadderContext, accountId: string, id: string, body: ScheduleBodyT) {
  await requireLadder(ctx, accountId, id);
  // Only the fields named are written, so a halt's pause meanwhile stands (`scheduleChange`).
  if (!(await ctx.coverage.schedules.change(ladderOrigin(id), accountId, scheduleChange(body, 'body')))) throw notFound(`No ladder ${id}.`);
  return scheduleView(await requireLadder(ctx, accountId, id));
}

/**
 * `POST /ladders/{id}/rungs/order`: a permutation of the current rung ids, else 400; answers
 * the rungs in their new order as the original's `reorder_rungs` does (ladders.rs
 * `rung_to_wire`): the console reads `engine` and `runs` as optional, so the `none` engine and
 * an inherited target are left out rather than sent as `"none"` and null.
 */
export async function reorderRungs(ctx: LadderContext, accountId: string, id: string, rungIds: string[]) {
  checkPermutation(await requireLadder(ctx, accountId, id), rungIds);
  const updated = await ctx.ladders.reorder(accountId, id, rungIds);
  if (!updated) throw notFound(`No ladder ${id}.`);
  return updated.rungs.map(({ engine, runs, ...rung }) => ({
    ...rung,
    ...(engine === 'none' ? {} : { engine }),
    ...(runs === null ? {} : { runs }),
  }));
}

/** One combination written at `field` (coverage checks members of a list, so its messages name `<field>[0]`). */
function checkCombination(combination: Parameters<typeof checkCombinations>[0][number], owns: (rowId: string) => boolean, field: string) {
  try {
    return checkCombinations([combination], field, owns)[0]!;
  } catch (error) {
    if (error instanceof HttpError) throw badRequest(error.message.replaceAll(`${field}[0]`, field));
    throw error;
  }
}

/** A body naming a climber: its `key`, the console's `{ combination: { … } }`, or the combination's fields flattened. */
export type ClimberNaming = Omit<ClimberBodyT, 'priority' | 'focused' | 'held'>;

/** The key of the climber a body names; 400 when the ladder does not climb it. */
export async function climberKeyOf(ctx: LadderContext, ladder: Ladder, body: ClimberNaming): Promise<string> {
  const { key: given, combination: nested, ...flattened } = body;
  let key = given;
  if (key === undefined) {
    const configs = await ggConfigLookup(ctx.coverage.jobs, ladder.accountId);
    const written = nested ?? flattened;
    const field = nested ? 'body.combination' : 'body';
    key = resolveCombination(checkCombination(written, (rowId) => configs(rowId) !== null, field), configs).key;
  }
  if (!(await ladderClimbers(ctx, ladder)).some((climber) => climber.combination.key === key)) {
    throw badRequest(`body names the climber "${key}", which ladder ${ladder.id} does not climb (not among its combo groups' members and combos).`);
  }
  return key;
}

/** `POST /ladders/{id}/climbers`: one climber's steering, written whole (an omitted field is reset to its default). */
export async function steerClimber(ctx: LadderContext, accountId: string, id: string, body: ClimberBodyT): Promise<ClimberSteering> {
  const ladder = await requireLadder(ctx, accountId, id);
  const { priority = 0, focused = false, held = false, ...named } = body;
  return ctx.climbers.put(ladder.id, { key: await climberKeyOf(ctx, ladder, named), priority, focused, held });
}

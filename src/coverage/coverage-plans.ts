import type { PlanBodyT, ScheduleBodyT } from '../contract/coverage.js';
import { DEFAULT_SCHEDULE, planOrigin, type CoveragePlan, type CoverageSchedule, type PlanDeclaration } from '../db/coverage-plans-table.js';
import { badRequest, notFound } from '../errors.js';
import { bufferTargetOf, DEFAULT_BUFFER_TARGET } from './buffer-target.js';
import { checkCombinations, combinationView, resolveCombination } from './combinations.js';
import { ggConfigLookup, type CoverageContext } from './coverage-context.js';
import { checkPins } from './coverage-cells.js';
import { mergeSchedule, scheduleChange } from './schedule-owner.js';

export const MIN_RUNS_PER_CELL = 1;
export const MAX_RUNS_PER_CELL = 100;

export { planOrigin };

export async function requirePlan(ctx: CoverageContext, accountId: string, id: string): Promise<CoveragePlan> {
  const plan = await ctx.plans.get(accountId, id);
  if (!plan) throw notFound(`No coverage plan ${id}.`);
  return plan;
}

/** Referenced group ids must not name a group of the other kind; ids of no group are kept (they read as dangling). */
export async function checkGroupIds(ctx: CoverageContext, accountId: string, ids: string[], kind: 'combo' | 'case', field: string): Promise<string[]> {
  const groups = await ctx.groups.byIds(accountId, ids);
  ids.forEach((id, index) => {
    const group = groups.get(id);
    if (group && group.kind !== kind) throw badRequest(`${field}[${index}] "${id}" names a ${group.kind} group; ${field} takes ${kind} groups.`);
  });
  return [...new Set(ids)];
}

async function declarationOf(ctx: CoverageContext, accountId: string, body: PlanBodyT): Promise<PlanDeclaration> {
  if (!Number.isInteger(body.runsPerCell) || body.runsPerCell < MIN_RUNS_PER_CELL || body.runsPerCell > MAX_RUNS_PER_CELL) {
    throw badRequest(`body.runsPerCell must be between ${MIN_RUNS_PER_CELL} and ${MAX_RUNS_PER_CELL} (got ${body.runsPerCell}).`);
  }
  const configs = await ggConfigLookup(ctx.jobs, accountId);
  return {
    name: body.name,
    runsPerCell: body.runsPerCell,
    comboGroupIds: await checkGroupIds(ctx, accountId, body.comboGroupIds ?? [], 'combo', 'body.comboGroupIds'),
    caseGroupIds: await checkGroupIds(ctx, accountId, body.caseGroupIds ?? [], 'case', 'body.caseGroupIds'),
    combos: checkCombinations(body.combos ?? [], 'body.combos', (rowId) => configs(rowId) !== null),
    cases: checkPins(body.cases ?? [], 'body.cases'),
  };
}

/** The plan as read: declaration and schedule flattened, members resolved (gg names, root models). */
export async function planView(ctx: CoverageContext, accountId: string, plan: CoveragePlan) {
  const configs = await ggConfigLookup(ctx.jobs, accountId);
  const { schedule, ...declaration } = plan;
  return { ...declaration, combos: plan.combos.map((combo) => combinationView(resolveCombination(combo, configs))), ...schedule };
}

export const listPlans = async (ctx: CoverageContext, accountId: string) =>
  Promise.all((await ctx.plans.list(accountId)).map((plan) => planView(ctx, accountId, plan)));

export async function createPlan(ctx: CoverageContext, accountId: string, body: PlanBodyT) {
  const declaration = await declarationOf(ctx, accountId, body);
  const schedule = mergeSchedule(DEFAULT_SCHEDULE, body.schedule ?? {}, 'body.schedule');
  return planView(ctx, accountId, await ctx.plans.create(accountId, declaration, schedule));
}

/** A PUT without `schedule` leaves the schedule alone; one with it changes the fields it names. */
export async function updatePlan(ctx: CoverageContext, accountId: string, id: string, body: PlanBodyT) {
  await requirePlan(ctx, accountId, id);
  const declaration = await declarationOf(ctx, accountId, body);
  const schedule = body.schedule ? scheduleChange(body.schedule, 'body.schedule') : null;
  const plan = await ctx.plans.update(accountId, id, declaration, schedule);
  if (!plan) throw notFound(`No coverage plan ${id}.`);
  return planView(ctx, accountId, plan);
}

export async function deletePlan(ctx: CoverageContext, accountId: string, id: string): Promise<void> {
  if (!(await ctx.plans.delete(accountId, id))) throw notFound(`No coverage plan ${id}.`);
}

export const getSchedule = async (ctx: CoverageContext, accountId: string, id: string) => (await requirePlan(ctx, accountId, id)).schedule;

/** Changes the fields the body names, in one statement (`scheduleChange`). */
export async function putSchedule(ctx: CoverageContext, accountId: string, id: string, body: ScheduleBodyT): Promise<CoverageSchedule> {
  await requirePlan(ctx, accountId, id);
  if (!(await ctx.schedules.change(planOrigin(id), accountId, scheduleChange(body, 'body')))) throw notFound(`No coverage plan ${id}.`);
  return (await requirePlan(ctx, accountId, id)).schedule;
}

/** `GET /coverage-settings`: the account's choice, else the compiled-in default; a read writes nothing. */
export async function getSettings(ctx: CoverageContext, accountId: string) {
  const chosen = await ctx.settings.bufferTarget(accountId);
  return { bufferTarget: chosen ?? DEFAULT_BUFFER_TARGET, isDefault: chosen === null };
}

export async function putSettings(ctx: CoverageContext, accountId: string, bufferTarget: { kind: string; runs?: number }) {
  const target = bufferTargetOf(bufferTarget, 'body.bufferTarget');
  await ctx.settings.setBufferTarget(accountId, target);
  return { bufferTarget: target, isDefault: false };
}

import type { GroupBodyT } from '../contract/coverage.js';
import type { CoverageGroup, GroupWrite } from '../db/coverage-groups-table.js';
import { badRequest, notFound } from '../errors.js';
import { checkCombinations, combinationView, resolveCombination } from './combinations.js';
import { ggConfigLookup, type CoverageContext } from './coverage-context.js';
import { checkPins } from './coverage-cells.js';

/** A written group, checked: members of the other kind are refused, as is a gg member naming a configuration the account does not hold. */
async function groupWrite(ctx: CoverageContext, accountId: string, body: GroupBodyT): Promise<GroupWrite> {
  const combos = body.combos ?? [];
  const cases = body.cases ?? [];
  if (body.kind === 'combo' && cases.length > 0) throw badRequest('body.cases must be empty on a group of kind combo.');
  if (body.kind === 'case' && combos.length > 0) throw badRequest('body.combos must be empty on a group of kind case.');
  const configs = await ggConfigLookup(ctx.jobs, accountId);
  return {
    name: body.name,
    kind: body.kind,
    combos: checkCombinations(combos, 'body.combos', (rowId) => configs(rowId) !== null),
    cases: checkPins(cases, 'body.cases'),
  };
}

export async function groupView(ctx: CoverageContext, accountId: string, group: CoverageGroup) {
  const configs = await ggConfigLookup(ctx.jobs, accountId);
  return { ...group, combos: group.combos.map((combo) => combinationView(resolveCombination(combo, configs))) };
}

const missing = (id: string) => notFound(`No coverage group ${id}.`);

export const listGroups = async (ctx: CoverageContext, accountId: string) =>
  Promise.all((await ctx.groups.list(accountId)).map((group) => groupView(ctx, accountId, group)));

export const createGroup = async (ctx: CoverageContext, accountId: string, body: GroupBodyT) =>
  groupView(ctx, accountId, await ctx.groups.create(accountId, await groupWrite(ctx, accountId, body)));

export async function updateGroup(ctx: CoverageContext, accountId: string, id: string, body: GroupBodyT) {
  if (!(await ctx.groups.get(accountId, id))) throw missing(id);
  const group = await ctx.groups.update(accountId, id, await groupWrite(ctx, accountId, body));
  if (!group) throw missing(id);
  return groupView(ctx, accountId, group);
}

/** Plans referencing the group keep the id and ignore it from now on. */
export async function deleteGroup(ctx: CoverageContext, accountId: string, id: string): Promise<void> {
  if (!(await ctx.groups.delete(accountId, id))) throw missing(id);
}

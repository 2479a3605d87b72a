import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PinnedCaseT } from '../contract/coverage.js';
import type { StoredCombination } from '../coverage/combinations.js';
import { coverageSchedulesTable, ownerOf, SCHEDULE_COLUMNS, scheduleFromRow, type OwnerSchedule, type ScheduleChange } from './coverage-schedules-table.js';
import { writeTransaction, type BackendStore } from './dialect.js';
import type { StoreSchema } from './store-schema.js';

export type OuterAxis = 'case' | 'combination';

/** How a plan is fed; written apart from the declaration (stored in `coverage_schedules`). */
export type CoverageSchedule = OwnerSchedule<OuterAxis>;

/** What a plan covers. */
export interface PlanDeclaration {
  name: string;
  runsPerCell: number;
  comboGroupIds: string[];
  caseGroupIds: string[];
  combos: StoredCombination[];
  cases: PinnedCaseT[];
}

export interface CoveragePlan extends PlanDeclaration {
  id: string;
  updatedAt: string;
  schedule: CoverageSchedule;
}

export const DEFAULT_SCHEDULE: CoverageSchedule = { outerAxis: 'case', paused: false, autoTopUp: false, bufferTarget: null };

export const planOrigin = (planId: string) => `plan:${planId}`;

interface Row {
  id: string;
  name: string;
  runsPerCell: number;
  comboGroupIds: string;
  caseGroupIds: string;
  combos: string;
  cases: string;
  outerAxis: string;
  paused: number;
  autoTopUp: number;
  bufferKind: string | null;
  bufferRuns: number | null;
  updatedAt: string;
}

const fromRow = (row: Row): CoveragePlan => ({
  id: row.id,
  name: row.name,
  runsPerCell: row.runsPerCell,
  comboGroupIds: JSON.parse(row.comboGroupIds),
  caseGroupIds: JSON.parse(row.caseGroupIds),
  combos: JSON.parse(row.combos),
  cases: JSON.parse(row.cases),
  updatedAt: row.updatedAt,
  schedule: scheduleFromRow<OuterAxis>(row),
});

const declarationColumns = (plan: PlanDeclaration) => ({
  name: plan.name,
  runs_per_cell: plan.runsPerCell,
  combo_group_ids: JSON.stringify(plan.comboGroupIds),
  case_group_ids: JSON.stringify(plan.caseGroupIds),
  combos: JSON.stringify(plan.combos),
  cases: JSON.stringify(plan.cases),
});

/** Coverage plans with their schedules; every query is scoped to the owning account. */
export function coveragePlansTable(store: BackendStore) {
  const schedules = coverageSchedulesTable(store);
  const select = (db: Kysely<StoreSchema>) => db.selectFrom('coverage_plans as p')
    .innerJoin('coverage_schedules as s', (join) => join.on('s.owner', '=', ownerOf('plan', 'p.id')))
    .select([
      'p.id', 'p.name', 'p.runs_per_cell as runsPerCell', 'p.combo_group_ids as comboGroupIds', 'p.case_group_ids as caseGroupIds',
      'p.combos', 'p.cases', ...SCHEDULE_COLUMNS, 'p.updated_at as updatedAt',
    ]);
  const get = async (accountId: string, id: string, db = store.db): Promise<CoveragePlan | null> => {
    const row = await select(db).where('p.id', '=', id).where('p.account_id', '=', accountId).executeTakeFirst();
    return row ? fromRow(row) : null;
  };

  return {
    list: async (accountId: string): Promise<CoveragePlan[]> =>
      (await select(store.db).where('p.account_id', '=', accountId).orderBy('p.created_at').orderBy('p.id').execute()).map(fromRow),
    get: (accountId: string, id: string) => get(accountId, id),
    async exists(accountId: string, id: string): Promise<boolean> {
      return (await store.db.selectFrom('coverage_plans').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()) !== undefined;
    },
    create: (accountId: string, declaration: PlanDeclaration, schedule: CoverageSchedule): Promise<CoveragePlan> =>
      writeTransaction(store, async (trx) => {
        const id = randomUUID();
        const now = new Date().toISOString();
        await trx.insertInto('coverage_plans').values({ id, account_id: accountId, ...declarationColumns(declaration), created_at: now, updated_at: now }).execute();
        await schedules.put(planOrigin(id), accountId, schedule, trx);
        return (await get(accountId, id, trx))!;
      }),
    /** Writes the declaration, and the schedule's changed fields when given, in one transaction; null when the account holds no such plan. */
    update: (accountId: string, id: string, declaration: PlanDeclaration, schedule: ScheduleChange<OuterAxis> | null): Promise<CoveragePlan | null> =>
      writeTransaction(store, async (trx) => {
        const result = await trx.updateTable('coverage_plans').set({ ...declarationColumns(declaration), updated_at: new Date().toISOString() })
          .where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return null;
        if (schedule) await schedules.change(planOrigin(id), accountId, schedule, trx);
        return get(accountId, id, trx);
      }),
    async delete(accountId: string, id: string): Promise<boolean> {
      const result = await store.db.deleteFrom('coverage_plans').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type CoveragePlansTable = ReturnType<typeof coveragePlansTable>;

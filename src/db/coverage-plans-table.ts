import { randomUUID } from 'node:crypto';
import type { PinnedCaseT } from '../contract/coverage.js';
import type { StoredCombination } from '../coverage/combinations.js';
import { coverageSchedulesTable, SCHEDULE_COLUMNS, scheduleFromRow, type OwnerSchedule } from './coverage-schedules-table.js';
import type { Database } from './open-database.js';

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
  outerAxis: OuterAxis;
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
  runsPerCell: plan.runsPerCell,
  comboGroupIds: JSON.stringify(plan.comboGroupIds),
  caseGroupIds: JSON.stringify(plan.caseGroupIds),
  combos: JSON.stringify(plan.combos),
  cases: JSON.stringify(plan.cases),
});

/** Coverage plans with their schedules; every query is scoped to the owning account. */
export function coveragePlansTable(db: Database) {
  const schedules = coverageSchedulesTable(db);
  const select = `SELECT p.id, p.name, p.runs_per_cell AS runsPerCell, p.combo_group_ids AS comboGroupIds, p.case_group_ids AS caseGroupIds,
    p.combos, p.cases, ${SCHEDULE_COLUMNS}, p.updated_at AS updatedAt
    FROM coverage_plans AS p JOIN coverage_schedules AS s ON s.owner = 'plan:' || p.id`;
  const list = db.prepare<[string], Row>(`${select} WHERE p.account_id = ? ORDER BY p.created_at, p.id`);
  const one = db.prepare<[string, string], Row>(`${select} WHERE p.id = ? AND p.account_id = ?`);
  const exists = db.prepare<[string, string], number>('SELECT EXISTS (SELECT 1 FROM coverage_plans WHERE id = ? AND account_id = ?)').pluck();
  const insert = db.prepare(
    `INSERT INTO coverage_plans (id, account_id, name, runs_per_cell, combo_group_ids, case_group_ids, combos, cases, created_at, updated_at)
     VALUES (@id, @accountId, @name, @runsPerCell, @comboGroupIds, @caseGroupIds, @combos, @cases, @now, @now)`,
  );
  const updateDeclaration = db.prepare(
    `UPDATE coverage_plans SET name = @name, runs_per_cell = @runsPerCell, combo_group_ids = @comboGroupIds,
       case_group_ids = @caseGroupIds, combos = @combos, cases = @cases, updated_at = @now WHERE id = @id AND account_id = @accountId`,
  );
  const remove = db.prepare<[string, string]>('DELETE FROM coverage_plans WHERE id = ? AND account_id = ?');
  const get = (accountId: string, id: string): CoveragePlan | null => {
    const row = one.get(id, accountId);
    return row ? fromRow(row) : null;
  };

  return {
    list: (accountId: string) => list.all(accountId).map(fromRow),
    get,
    exists: (accountId: string, id: string) => exists.get(id, accountId) === 1,
    create: db.transaction((accountId: string, declaration: PlanDeclaration, schedule: CoverageSchedule): CoveragePlan => {
      const id = randomUUID();
      insert.run({ id, accountId, now: new Date().toISOString(), ...declarationColumns(declaration) });
      schedules.put(planOrigin(id), accountId, schedule);
      return get(accountId, id)!;
    }),
    /** Writes the declaration, and the schedule when given, in one transaction; null when the account holds no such plan. */
    update: db.transaction((accountId: string, id: string, declaration: PlanDeclaration, schedule: CoverageSchedule | null): CoveragePlan | null => {
      if (updateDeclaration.run({ id, accountId, now: new Date().toISOString(), ...declarationColumns(declaration) }).changes === 0) return null;
      if (schedule) schedules.put(planOrigin(id), accountId, schedule);
      return get(accountId, id);
    }),
    delete: (accountId: string, id: string): boolean => remove.run(id, accountId).changes > 0,
  };
}

export type CoveragePlansTable = ReturnType<typeof coveragePlansTable>;

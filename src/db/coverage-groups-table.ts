import { randomUUID } from 'node:crypto';
import type { PinnedCaseT } from '../contract/coverage.js';
import type { StoredCombination } from '../coverage/combinations.js';
import type { Database } from './open-database.js';

export type GroupKind = 'combo' | 'case';

export interface CoverageGroup {
  id: string;
  name: string;
  kind: GroupKind;
  combos: StoredCombination[];
  cases: PinnedCaseT[];
  updatedAt: string;
}

export type GroupWrite = Omit<CoverageGroup, 'id' | 'updatedAt'>;

interface Row {
  id: string;
  name: string;
  kind: GroupKind;
  combos: string;
  cases: string;
  updatedAt: string;
}

const fromRow = (row: Row): CoverageGroup => ({ ...row, combos: JSON.parse(row.combos), cases: JSON.parse(row.cases) });

/** Coverage groups; every query is scoped to the owning account. */
export function coverageGroupsTable(db: Database) {
  const select = 'SELECT id, name, kind, combos, cases, updated_at AS updatedAt FROM coverage_groups';
  const list = db.prepare<[string], Row>(`${select} WHERE account_id = ? ORDER BY created_at, id`);
  const one = db.prepare<[string, string], Row>(`${select} WHERE id = ? AND account_id = ?`);
  const insert = db.prepare(
    `INSERT INTO coverage_groups (id, account_id, name, kind, combos, cases, created_at, updated_at)
     VALUES (@id, @accountId, @name, @kind, @combos, @cases, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE coverage_groups SET name = @name, kind = @kind, combos = @combos, cases = @cases, updated_at = @now
     WHERE id = @id AND account_id = @accountId`,
  );
  const remove = db.prepare<[string, string]>('DELETE FROM coverage_groups WHERE id = ? AND account_id = ?');
  const columns = (group: GroupWrite) => ({ name: group.name, kind: group.kind, combos: JSON.stringify(group.combos), cases: JSON.stringify(group.cases) });

  return {
    list: (accountId: string) => list.all(accountId).map(fromRow),
    get(accountId: string, id: string): CoverageGroup | null {
      const row = one.get(id, accountId);
      return row ? fromRow(row) : null;
    },
    create(accountId: string, group: GroupWrite): CoverageGroup {
      const id = randomUUID();
      const now = new Date().toISOString();
      insert.run({ id, accountId, now, ...columns(group) });
      return { id, ...group, updatedAt: now };
    },
    /** Null when the account holds no such group. */
    update(accountId: string, id: string, group: GroupWrite): CoverageGroup | null {
      const now = new Date().toISOString();
      return update.run({ id, accountId, now, ...columns(group) }).changes === 0 ? null : { id, ...group, updatedAt: now };
    },
    delete: (accountId: string, id: string): boolean => remove.run(id, accountId).changes > 0,
  };
}

export type CoverageGroupsTable = ReturnType<typeof coverageGroupsTable>;

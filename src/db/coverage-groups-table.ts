import { randomUUID } from 'node:crypto';
import type { PinnedCaseT } from '../contract/coverage.js';
import type { StoredCombination } from '../coverage/combinations.js';
import type { BackendStore } from './dialect.js';

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
  kind: string;
  combos: string;
  cases: string;
  updatedAt: string;
}

const fromRow = (row: Row): CoverageGroup =>
  ({ ...row, kind: row.kind as GroupKind, combos: JSON.parse(row.combos), cases: JSON.parse(row.cases) });

const columns = (group: GroupWrite) => ({ name: group.name, kind: group.kind, combos: JSON.stringify(group.combos), cases: JSON.stringify(group.cases) });

/** Coverage groups; every query is scoped to the owning account. */
export function coverageGroupsTable(store: BackendStore) {
  const select = () => store.db.selectFrom('coverage_groups').select(['id', 'name', 'kind', 'combos', 'cases', 'updated_at as updatedAt']);

  return {
    list: async (accountId: string): Promise<CoverageGroup[]> =>
      (await select().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute()).map(fromRow),
    async get(accountId: string, id: string): Promise<CoverageGroup | null> {
      const row = await select().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return row ? fromRow(row) : null;
    },
    async create(accountId: string, group: GroupWrite): Promise<CoverageGroup> {
      const id = randomUUID();
      const now = new Date().toISOString();
      await store.db.insertInto('coverage_groups').values({ id, account_id: accountId, ...columns(group), created_at: now, updated_at: now }).execute();
      return { id, ...group, updatedAt: now };
    },
    /** The account's groups among `ids`, by id, in one statement (ids of no group are absent). */
    async byIds(accountId: string, ids: readonly string[]): Promise<Map<string, CoverageGroup>> {
      if (ids.length === 0) return new Map();
      const rows = await select().where('account_id', '=', accountId).where('id', 'in', [...new Set(ids)]).execute();
      return new Map(rows.map((row) => [row.id, fromRow(row)]));
    },
    /** Null when the account holds no such group. */
    async update(accountId: string, id: string, group: GroupWrite): Promise<CoverageGroup | null> {
      const now = new Date().toISOString();
      const result = await store.db.updateTable('coverage_groups').set({ ...columns(group), updated_at: now })
        .where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return result.numUpdatedRows === 0n ? null : { id, ...group, updatedAt: now };
    },
    async delete(accountId: string, id: string): Promise<boolean> {
      const result = await store.db.deleteFrom('coverage_groups').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type CoverageGroupsTable = ReturnType<typeof coverageGroupsTable>;

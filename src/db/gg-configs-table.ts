import { randomUUID } from 'node:crypto';
import type { BackendStore } from './dialect.js';

export interface GgConfig {
  id: string;
  name: string;
  capabilitySet: Record<string, unknown>;
  slotModels: Record<string, string>;
}

interface Row {
  id: string;
  name: string;
  capabilitySet: string;
  slotModels: string;
}

const fromRow = (row: Row): GgConfig => ({
  id: row.id,
  name: row.name,
  capabilitySet: JSON.parse(row.capabilitySet) as Record<string, unknown>,
  slotModels: JSON.parse(row.slotModels) as Record<string, string>,
});

/** Saved gg configurations; every query is scoped to the owning account. */
export function ggConfigsTable(store: BackendStore) {
  const { db } = store;
  const select = () => db.selectFrom('gg_configs').select(['id', 'name', 'capability_set as capabilitySet', 'slot_models as slotModels']);

  return {
    list: async (accountId: string): Promise<GgConfig[]> =>
      (await select().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute()).map(fromRow),
    async get(accountId: string, id: string): Promise<GgConfig | null> {
      const row = await select().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return row ? fromRow(row) : null;
    },
    async create(accountId: string, body: Omit<GgConfig, 'id'>): Promise<GgConfig> {
      const id = randomUUID();
      const now = new Date().toISOString();
      await db
        .insertInto('gg_configs')
        .values({ id, account_id: accountId, name: body.name, capability_set: JSON.stringify(body.capabilitySet), slot_models: JSON.stringify(body.slotModels), created_at: now, updated_at: now })
        .execute();
      return { id, ...body };
    },
    /** Null when the account holds no such configuration. */
    async update(accountId: string, id: string, body: Omit<GgConfig, 'id'>): Promise<GgConfig | null> {
      const result = await db
        .updateTable('gg_configs')
        .set({ name: body.name, capability_set: JSON.stringify(body.capabilitySet), slot_models: JSON.stringify(body.slotModels), updated_at: new Date().toISOString() })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return result.numUpdatedRows === 0n ? null : { id, ...body };
    },
    async delete(accountId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('gg_configs').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type GgConfigsTable = ReturnType<typeof ggConfigsTable>;

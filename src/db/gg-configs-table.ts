import { randomUUID } from 'node:crypto';
import type { Database } from './open-database.js';

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
export function ggConfigsTable(db: Database) {
  const select = 'SELECT id, name, capability_set AS capabilitySet, slot_models AS slotModels FROM gg_configs';
  const list = db.prepare<[string], Row>(`${select} WHERE account_id = ? ORDER BY created_at, id`);
  const one = db.prepare<[string, string], Row>(`${select} WHERE id = ? AND account_id = ?`);
  const insert = db.prepare(
    `INSERT INTO gg_configs (id, account_id, name, capability_set, slot_models, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare(
    'UPDATE gg_configs SET name = ?, capability_set = ?, slot_models = ?, updated_at = ? WHERE id = ? AND account_id = ?',
  );
  const remove = db.prepare('DELETE FROM gg_configs WHERE id = ? AND account_id = ?');

  return {
    list: (accountId: string) => list.all(accountId).map(fromRow),
    get: (accountId: string, id: string) => {
      const row = one.get(id, accountId);
      return row ? fromRow(row) : null;
    },
    create(accountId: string, body: Omit<GgConfig, 'id'>): GgConfig {
      const id = randomUUID();
      const now = new Date().toISOString();
      insert.run(id, accountId, body.name, JSON.stringify(body.capabilitySet), JSON.stringify(body.slotModels), now, now);
      return { id, ...body };
    },
    /** Null when the account holds no such configuration. */
    update(accountId: string, id: string, body: Omit<GgConfig, 'id'>): GgConfig | null {
      const changes = update.run(body.name, JSON.stringify(body.capabilitySet), JSON.stringify(body.slotModels), new Date().toISOString(), id, accountId).changes;
      return changes === 0 ? null : { id, ...body };
    },
    delete: (accountId: string, id: string): boolean => remove.run(id, accountId).changes > 0,
  };
}

export type GgConfigsTable = ReturnType<typeof ggConfigsTable>;

import type { Database } from './open-database.js';

export type StoreMetaKey = 'record_format' | 'catalog_version' | 'store_id';

export interface StoreMeta {
  get(key: StoreMetaKey): string | null;
  set(key: StoreMetaKey, value: string): void;
}

export function storeMeta(db: Database): StoreMeta {
  const select = db.prepare<[string], string>('SELECT value FROM store_meta WHERE key = ?').pluck();
  const upsert = db.prepare('INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  return {
    get: (key) => select.get(key) ?? null,
    set: (key, value) => void upsert.run(key, value),
  };
}

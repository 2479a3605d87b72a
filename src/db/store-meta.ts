import type { BackendStore } from './dialect.js';

export type StoreMetaKey = 'record_format' | 'catalog_version' | 'store_id' | 'catalog_checkout';

export interface StoreMeta {
  get(key: StoreMetaKey): Promise<string | null>;
  set(key: StoreMetaKey, value: string): Promise<void>;
}

/** The store's own key-value facts (`store_meta`): its record format, catalog marker, id and the checkout it was ingested from. */
export function storeMeta({ db }: Pick<BackendStore, 'db'>): StoreMeta {
  return {
    async get(key) {
      const row = await db.selectFrom('store_meta').select('value').where('key', '=', key).executeTakeFirst();
      return row?.value ?? null;
    },
    async set(key, value) {
      await db.insertInto('store_meta').values({ key, value }).onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute();
    },
  };
}

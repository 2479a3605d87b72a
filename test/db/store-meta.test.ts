import { describe, expect, it } from 'vitest';
import { catalogIndex } from '../../src/catalog/catalog-index.js';
import { storeReadiness } from '../../src/catalog/store-readiness.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();

describe.each(ENGINES)('store meta on %s', (engine) => {
  it('answers null for a key never set, and a set replaces the value', async () => {
    const meta = storeMeta(await stores.fresh(engine));
    expect(await meta.get('catalog_version')).toBeNull();
    await meta.set('catalog_version', 'c1');
    await meta.set('catalog_version', 'c2 — ωmega');
    expect(await meta.get('catalog_version')).toBe('c2 — ωmega');
    expect(await meta.get('store_id')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('says the store is empty, of another format, or ready, and stays ready once it was', async () => {
    const store = await stores.fresh(engine);
    const readiness = storeReadiness(store, 3);
    const index = catalogIndex(store);
    expect(await readiness.status()).toBe('empty');
    await storeMeta(store).set('record_format', '2');
    await index.put({ slug: 'carom', version: 'v1.0.0', recordFormat: 2, storeDir: '/d', fingerprint: 'f', contentHash: 'h', experimental: false, ingestedAt: 'x' });
    expect(await readiness.status()).toBe('format-mismatch');
    await storeMeta(store).set('record_format', '3');
    expect(await readiness.status()).toBe('empty');
    await index.put({ slug: 'carom', version: 'v1.0.0', recordFormat: 3, storeDir: '/d', fingerprint: 'f', contentHash: 'h', experimental: false, ingestedAt: 'x' });
    expect(await readiness.isReady()).toBe(true);
    await store.db.deleteFrom('test_case_versions').execute();
    expect(await readiness.status()).toBe('ready');
  });
});

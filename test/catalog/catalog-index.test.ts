import { describe, expect, it } from 'vitest';
import { catalogIndex, type IndexedVersion } from '../../src/catalog/catalog-index.js';
import { writeTransaction } from '../../src/db/dialect.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { insertRun } from '../helpers/store-rows.js';

const stores = engineStores();

const version = (slug: string, v: string, overrides: Partial<IndexedVersion> = {}): IndexedVersion => ({
  slug, version: v, recordFormat: 3, storeDir: `/store/${slug}/${v}/a`, fingerprint: 'f', contentHash: 'h', experimental: false,
  ingestedAt: '2026-11-26T10:00:00.000Z', ...overrides,
});

describe.each(ENGINES)('the catalog index on %s', (engine) => {
  it('reads versions back by slug then version text in byte order, and an upsert replaces a version whole', async () => {
    const index = catalogIndex(await stores.fresh(engine));
    for (const [slug, v] of [['beacon', 'v1.2.0'], ['Zebra', 'v1.0.0'], ['beacon', 'v1.10.0'], ['beacon', 'V2.0.0'], ['alpha', 'v1.0.0']] as const) {
      await index.put(version(slug, v));
    }
    expect((await index.all()).map((row) => `${row.slug}@${row.version}`)).toEqual([
      'Zebra@v1.0.0', 'alpha@v1.0.0', 'beacon@V2.0.0', 'beacon@v1.10.0', 'beacon@v1.2.0',
    ]);
    expect((await index.versionsOf('beacon')).map((row) => row.version)).toEqual(['V2.0.0', 'v1.10.0', 'v1.2.0']);
    expect(await index.versionsOf('missing')).toEqual([]);
    expect(await index.count()).toBe(5);

    await index.put(version('beacon', 'v1.2.0', { storeDir: '/store/beacon/v1.2.0/b', experimental: true, recordFormat: 4, contentHash: 'h2' }));
    await index.setFingerprint('beacon', 'v1.2.0', 'f2');
    expect(await index.get('beacon', 'v1.2.0')).toEqual(
      version('beacon', 'v1.2.0', { storeDir: '/store/beacon/v1.2.0/b', experimental: true, recordFormat: 4, contentHash: 'h2', fingerprint: 'f2' }),
    );
    expect(await index.get('beacon', 'v9.9.9')).toBeNull();
    expect(await index.count()).toBe(5);
  });

  it('tells a store holding another record format', async () => {
    const index = catalogIndex(await stores.fresh(engine));
    expect(await index.hasOtherFormats(3)).toBe(false);
    await index.put(version('carom', 'v1.0.0'));
    expect(await index.hasOtherFormats(3)).toBe(false);
    expect(await index.hasOtherFormats(4)).toBe(true);
  });

  it('ends a scan: prunes what no run references, replaces the groups in their order and stamps the markers', async () => {
    const store = await stores.fresh(engine);
    const index = catalogIndex(store);
    for (const v of ['v1.0.0', 'v1.1.0', 'v2.0.0']) await index.put(version('carom', v));
    await insertRun(store, { id: 'r1', slug: 'carom', version: 'v1.1.0' });
    await index.endScan({ prune: [], groups: [{ slug: 'old', name: 'Old', cases: ['carom'] }], meta: [] });

    const pruned = await index.endScan({
      prune: [{ slug: 'carom', version: 'v1.0.0' }, { slug: 'carom', version: 'v1.1.0' }, { slug: 'carom', version: 'v9.0.0' }],
      groups: [{ slug: 'z-first', name: 'First', summary: 'Shown first', cases: ['carom', 'beacon'] }, { slug: 'a-second', name: 'Second', cases: [] }],
      meta: [['catalog_version', 'c1'], ['record_format', '3']],
    });
    expect(pruned).toEqual([{ slug: 'carom', version: 'v1.0.0' }]);
    expect((await index.all()).map((row) => row.version)).toEqual(['v1.1.0', 'v2.0.0']);
    expect(await index.groups()).toEqual([
      { slug: 'z-first', name: 'First', summary: 'Shown first', cases: ['carom', 'beacon'] },
      { slug: 'a-second', name: 'Second', cases: [] },
    ]);
    const meta = storeMeta(store);
    expect([await meta.get('catalog_version'), await meta.get('record_format')]).toEqual(['c1', '3']);

    // Null groups keep the stored ones.
    await index.endScan({ prune: [], groups: null, meta: [] });
    expect((await index.groups()).map((group) => group.slug)).toEqual(['z-first', 'a-second']);
  });

  it('leaves the index, groups and markers as they were when a scan end fails midway', async () => {
    const store = await stores.fresh(engine);
    const index = catalogIndex(store);
    const meta = storeMeta(store);
    for (const v of ['v1.0.0', 'v2.0.0']) await index.put(version('carom', v));
    await index.endScan({ prune: [], groups: [{ slug: 'kept', name: 'Kept', cases: ['carom'] }], meta: [['catalog_version', 'c1']] });

    // The prune lands first; the second group breaks the groups' primary key after it.
    const failing = index.endScan({
      prune: [{ slug: 'carom', version: 'v1.0.0' }],
      groups: [{ slug: 'twice', name: 'A', cases: [] }, { slug: 'twice', name: 'B', cases: [] }],
      meta: [['catalog_version', 'c2']],
    });
    await expect(failing).rejects.toThrow();
    expect((await index.all()).map((row) => row.version)).toEqual(['v1.0.0', 'v2.0.0']);
    expect(await index.groups()).toEqual([{ slug: 'kept', name: 'Kept', cases: ['carom'] }]);
    expect(await meta.get('catalog_version')).toBe('c1');
    // The store takes writes again afterwards: the transaction was closed, not left open.
    await index.put(version('carom', 'v3.0.0'));
    expect(await index.count()).toBe(3);
  });

  it('keeps a version whose run is being stored while a whole scan prunes it: the prune waits for the run to commit', async () => {
    const store = await stores.fresh(engine);
    const index = catalogIndex(store);
    await index.put(version('carom', 'v1.0.0'));
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => { commit = resolve; });
    let inserted!: () => void;
    const insertedRun = new Promise<void>((resolve) => { inserted = resolve; });
    // A run of carom v1.0.0 inserted and not yet committed (a driver's report being stored).
    const storing = writeTransaction(store, async (trx) => {
      await insertRun({ engine: store.engine, db: trx }, { id: 'r-storing', slug: 'carom', version: 'v1.0.0' });
      inserted();
      await committing;
    });
    await insertedRun;
    const pruning = index.endScan({ prune: [{ slug: 'carom', version: 'v1.0.0' }], groups: null, meta: [] });
    // Long enough for an unserialized prune to have read the runs and deleted the version.
    await new Promise((resolve) => setTimeout(resolve, 300));
    commit();
    await storing;
    expect(await pruning).toEqual([]);
    expect(await index.get('carom', 'v1.0.0')).not.toBeNull();
  });
});

import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogIndex } from '../../src/catalog/catalog-index.js';
import { DefinitionStore } from '../../src/catalog/definition-store.js';
import { runIngestScan, type IngestDeps } from '../../src/catalog/ingest-scan.js';
import { RESOLVED_RECORD_FORMAT } from '../../src/catalog/record-format.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { insertRun } from '../helpers/store-rows.js';
import { minimalCase, tempDir, writeVersion } from './catalog-test-helpers.js';

const stores = engineStores();

const versionsOf = async (deps: IngestDeps) => (await deps.index.all()).map((row) => `${row.slug}@${row.version}`);

describe.each(ENGINES)('an ingest scan over a %s store', (engine) => {
  it('ingests, reuses a store holding the same catalog, and prunes what the checkout dropped unless a run names it', async () => {
    const store = await stores.fresh(engine);
    const root = await tempDir();
    for (const [slug, version] of [['mini', 'v1.0.0'], ['mini', 'v1.1.0'], ['other', 'v1.0.0']]) {
      await writeVersion(root, `test-cases/${slug}/${version}`, minimalCase(slug!));
    }
    let reingested = 0;
    const deps: IngestDeps = {
      catalogDir: root, index: catalogIndex(store), meta: storeMeta(store), store: new DefinitionStore(await tempDir('store-')),
      render: async (target) => (await writeFile(target.outFile, 'png'), []),
      onReingested: async () => void reingested++,
    };

    expect(await runIngestScan(deps, { catalogVersion: 'c1' }, () => {})).toMatchObject({ total: 3, ingested: 3, failed: 0, pruned: [] });
    expect(await versionsOf(deps)).toEqual(['mini@v1.0.0', 'mini@v1.1.0', 'other@v1.0.0']);
    expect([await deps.meta.get('catalog_version'), await deps.meta.get('record_format')]).toEqual(['c1', String(RESOLVED_RECORD_FORMAT)]);
    expect(await runIngestScan(deps, { catalogVersion: 'c1' }, () => {})).toMatchObject({ total: 3, ingested: 0, skipped: 3 });
    expect(reingested).toBe(1);

    await insertRun(store, { id: 'r1', slug: 'other', version: 'v1.0.0' });
    await rm(join(root, 'test-cases/mini/v1.0.0'), { recursive: true });
    await rm(join(root, 'test-cases/other'), { recursive: true });
    const report = await runIngestScan(deps, { catalogVersion: 'c2' }, () => {});
    expect(report).toMatchObject({ total: 1, failed: 0, pruned: [{ slug: 'mini', version: 'v1.0.0' }] });
    expect(await versionsOf(deps)).toEqual(['mini@v1.1.0', 'other@v1.0.0']);
    await expect(readdir(deps.store.versionRoot('mini', 'v1.0.0'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(deps.store.versionRoot('other', 'v1.0.0'))).toHaveLength(1);
    expect(await deps.meta.get('catalog_version')).toBe('c2');
  });
});

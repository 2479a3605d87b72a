import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogIndex } from '../../src/catalog/catalog-index.js';
import { DefinitionStore } from '../../src/catalog/definition-store.js';
import { IngestRefusedError } from '../../src/catalog/ingest-guard.js';
import { runIngestScan, type IngestDeps } from '../../src/catalog/ingest-scan.js';
import type { BackendStore } from '../../src/db/dialect.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { minimalCase, tempDir, writeVersion } from './catalog-test-helpers.js';

const stores = engineStores();

const versionsOf = async (deps: IngestDeps) => (await deps.index.all()).map((row) => `${row.slug}@${row.version}`);

/** A checkout (no git work tree: known by its absolute path) holding `versions` as `slug@version`. */
async function checkout(versions: string[]): Promise<string> {
  const root = await tempDir();
  for (const id of versions) {
    const [slug, version] = id.split('@');
    await writeVersion(root, `test-cases/${slug}/${version}`, minimalCase(slug!));
  }
  return root;
}

/** What a scan of `catalogDir` over `store` uses: one definition store for the deployment. */
function scanOf(store: BackendStore, definitions: DefinitionStore, catalogDir: string): IngestDeps {
  return {
    catalogDir, index: catalogIndex(store), meta: storeMeta(store), store: definitions,
    render: async (target) => (await writeFile(target.outFile, 'png'), []),
    onReingested: async () => {},
  };
}

const ALL = ['alpha@v1.0.0', 'beta@v1.0.0', 'gamma@v1.0.0', 'delta@v1.0.0'];

describe.each(ENGINES)('the whole-scan guard on a %s store', (engine) => {
  it('refuses a whole scan of another checkout, loses and adds nothing, and goes ahead when told to replace the catalog', async () => {
    const store = await stores.fresh(engine);
    const definitions = new DefinitionStore(await tempDir('store-'));
    const real = scanOf(store, definitions, await checkout(ALL));
    expect(await runIngestScan(real, {}, () => {})).toMatchObject({ ingested: 4, pruned: [] });
    const recorded = JSON.parse((await real.meta.get('catalog_checkout'))!);
    expect(recorded).toMatchObject({ key: real.catalogDir, path: real.catalogDir, remote: null });

    // Another machine's default: a different checkout with a catalog of its own.
    const examples = scanOf(store, definitions, await checkout(['carom@v1.0.0', 'alpha@v1.0.0']));
    const lines: unknown[] = [];
    const refused = await runIngestScan(examples, { catalogVersion: 'other' }, (line) => lines.push(line)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IngestRefusedError);
    expect((refused as Error).message).toContain(real.catalogDir);
    expect((refused as Error).message).toContain(examples.catalogDir);
    expect((refused as Error).message).toContain('replaceCatalog: true');
    expect(lines).toEqual([]);
    expect(await versionsOf(real)).toEqual(['alpha@v1.0.0', 'beta@v1.0.0', 'delta@v1.0.0', 'gamma@v1.0.0']);
    for (const id of ALL) {
      const [slug, version] = id.split('@');
      expect(await readdir(definitions.versionRoot(slug!, version!)), id).toHaveLength(1);
    }
    expect(await real.meta.get('catalog_version')).toBeNull();
    expect(JSON.parse((await real.meta.get('catalog_checkout'))!)).toEqual(recorded);
    // A scan of some cases only neither prunes nor replaces: it goes ahead.
    expect(await runIngestScan(examples, { testCases: ['carom'] }, () => {})).toMatchObject({ ingested: 1, pruned: [] });

    // Told to replace it, the scan goes ahead and the store now belongs to the new checkout.
    const replaced = await runIngestScan(examples, { replaceCatalog: true }, () => {});
    expect(replaced.pruned.map((id) => id.slug).sort()).toEqual(['beta', 'delta', 'gamma']);
    expect(await versionsOf(real)).toEqual(['alpha@v1.0.0', 'carom@v1.0.0']);
    expect(JSON.parse((await real.meta.get('catalog_checkout'))!)).toMatchObject({ key: examples.catalogDir });
    await expect(runIngestScan(real, {}, () => {})).rejects.toThrow(IngestRefusedError);
  });

  it('refuses a whole scan of the same checkout that would prune more than half of the stored versions, unless told', async () => {
    const store = await stores.fresh(engine);
    const deps = scanOf(store, new DefinitionStore(await tempDir('store-')), await checkout(ALL));
    expect(await runIngestScan(deps, {}, () => {})).toMatchObject({ ingested: 4 });
    // Half of them may go (2 of 4): a checkout that dropped some cases.
    await rm(join(deps.catalogDir, 'test-cases/delta'), { recursive: true });
    expect((await runIngestScan(deps, {}, () => {})).pruned).toEqual([{ slug: 'delta', version: 'v1.0.0' }]);
    // Two of the three left would go: refused, nothing lost.
    await rm(join(deps.catalogDir, 'test-cases/beta'), { recursive: true });
    await rm(join(deps.catalogDir, 'test-cases/gamma'), { recursive: true });
    await expect(runIngestScan(deps, {}, () => {})).rejects.toThrow(/would prune 2 of the 3 stored versions/);
    expect(await versionsOf(deps)).toEqual(['alpha@v1.0.0', 'beta@v1.0.0', 'gamma@v1.0.0']);
    expect((await runIngestScan(deps, { replaceCatalog: true }, () => {})).pruned).toHaveLength(2);
    expect(await versionsOf(deps)).toEqual(['alpha@v1.0.0']);
  });
});

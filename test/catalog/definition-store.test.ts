import { readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogIndex } from '../../src/catalog/catalog-index.js';
import { DefinitionStore, readStoredVersion, storeLayout } from '../../src/catalog/definition-store.js';
import { runIngestScan, type IngestDeps } from '../../src/catalog/ingest-scan.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { RESOLVED_RECORD_FORMAT } from '../../src/catalog/record-format.js';
import { contentHash, statFingerprint } from '../../src/catalog/version-hash.js';
import { sqliteStore } from '../../src/db/dialect.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { storeMeta } from '../../src/db/store-meta.js';
import { findChromium } from '../../src/render/find-chromium.js';
import { createRenderPool } from '../../src/render/render-pool.js';
import { copyOfCatalog, CRABBER, EXAMPLE_CATALOG, minimalCase, REGATTA, tempDir, writeVersion } from './catalog-test-helpers.js';

async function stageVersion(store: DefinitionStore, relDir: string, checkoutRoot = EXAMPLE_CATALOG) {
  const sourceDir = join(checkoutRoot, relDir);
  const read = await readVersion(checkoutRoot, sourceDir);
  return store.stage({
    read,
    sourceDir,
    checkoutRoot,
    contentHash: await contentHash(sourceDir, checkoutRoot),
    fingerprint: await statFingerprint(sourceDir, checkoutRoot),
  });
}

describe('DefinitionStore', () => {
  it('stages a copy with resolved.json and render targets, then commits it under a fresh name', async () => {
    const store = new DefinitionStore(await tempDir('store-'));
    const staged = await stageVersion(store, REGATTA);
    expect(staged.dir).toMatch(/skiff-race\/v1\.1\.0\/\.staging-[0-9a-f]{8}$/);
    expect(staged.renderTargets[2]).toEqual({
      view: 'title',
      scope: 'base',
      source: 'reference/title-base.html',
      htmlFile: join(staged.dir, 'source/reference/title-base.html'),
      outFile: join(staged.dir, 'references/base/title.png'),
      viewport: null,
    });
    // The renderer writes its PNGs before the commit makes the directory visible.
    for (const target of staged.renderTargets) await writeFile(target.outFile, 'png');
    const dir = await staged.commit();
    expect(dir).toMatch(/skiff-race\/v1\.1\.0\/[0-9a-f]{16}-[0-9a-f]{8}$/);
    const layout = storeLayout(dir);
    expect(await readFile(join(layout.sourceDir, 'specs/race.md'), 'utf8')).toBe(await readFile(join(EXAMPLE_CATALOG, REGATTA, 'specs/race.md'), 'utf8'));
    expect(await readFile(layout.referenceFile('gusts', 'title.png'), 'utf8')).toBe('png');
    const stored = await readStoredVersion(dir);
    expect(stored).toMatchObject({ recordFormat: RESOLVED_RECORD_FORMAT, slug: 'skiff-race', version: 'v1.1.0' });
    expect(stored.resolved.variants.map((variant) => variant.slug)).toEqual(['base', 'fleet', 'gusts']);
    expect(stored.contentHash).toBe(await contentHash(join(EXAMPLE_CATALOG, REGATTA), EXAMPLE_CATALOG));
  });

  it('copies the whole folder byte for byte, binaries and nested validation files included', async () => {
    const store = new DefinitionStore(await tempDir('store-'));
    const dir = await (await stageVersion(store, CRABBER)).commit();
    const copied = await contentHash(storeLayout(dir).sourceDir, storeLayout(dir).sourceDir);
    expect(copied).toBe(await contentHash(join(EXAMPLE_CATALOG, CRABBER), EXAMPLE_CATALOG));
    expect(await readFile(join(storeLayout(dir).sourceDir, 'assets/crab/3.png'))).toEqual(await readFile(join(EXAMPLE_CATALOG, CRABBER, 'assets/crab/3.png')));
  });

  it('keeps the previous directory intact when a write fails midway, and leaves no staging behind', async () => {
    const store = new DefinitionStore(await tempDir('store-'));
    const root = await copyOfCatalog([REGATTA]);
    const previous = await (await stageVersion(store, REGATTA, root)).commit();
    const before = await contentHash(previous, previous);

    // A symlink out of the checkout is refused while copying: the write aborts.
    await symlink('/etc/hostname', join(root, REGATTA, 'specs/zz-leak.md'));
    await expect(stageVersion(store, REGATTA, root)).rejects.toThrow(/zz-leak\.md: is a symlink that leaves the checkout/);
    expect(await readdir(store.versionRoot('skiff-race', 'v1.1.0'))).toEqual([previous.split('/').at(-1)]);
    expect(await contentHash(previous, previous)).toBe(before);
  });

  it('discards a staged version whose rendering really failed, and the previous one stays current', async () => {
    const root = await tempDir();
    const mockup = (body: string) => `<!doctype html><html><body>${body}</body></html>`;
    const dir = await writeVersion(root, 'test-cases/mini/v1.0.0', minimalCase('mini', {
      manifest: '[[reference]]\nview = "title"\npath = "reference/title.html"',
      files: { 'reference/title.html': mockup('<h1>Mini</h1>') },
    }));
    const db = openDatabase(join(await tempDir('db-'), 'backend.sqlite'));
    const store = sqliteStore<StoreSchema>(db);
    const pool = createRenderPool({ chromiumPath: findChromium(), threads: 1 });
    const deps: IngestDeps = {
      catalogDir: root, index: catalogIndex(store), meta: storeMeta(store), store: new DefinitionStore(await tempDir('store-')),
      render: async (target, rootDir) => (await pool.render({ htmlPath: target.htmlFile, rootDir, outPath: target.outFile })).blockedUrls,
      onReingested: async () => {},
    };
    try {
      expect(await runIngestScan(deps, {}, () => {})).toMatchObject({ ingested: 1, failed: 0 });
      const previous = (await deps.index.get('mini', 'v1.0.0'))!.storeDir;
      // The renderer refuses a mockup that navigates its tab away: the whole version fails.
      await writeFile(join(dir, 'reference/title.html'), mockup("<script>top.location.href = new URL('x.html', document.baseURI).href;</script>"));
      const report = await runIngestScan(deps, {}, () => {});
      expect(report).toMatchObject({ ingested: 0, failed: 1 });
      expect(report.testCaseVersions[0]!.error).toMatch(/title\.html: its script navigated the browser tab away/);
      expect((await deps.index.get('mini', 'v1.0.0'))!.storeDir).toBe(previous);
      expect(await readdir(deps.store.versionRoot('mini', 'v1.0.0'))).toEqual([previous.split('/').at(-1)]);
      expect((await readStoredVersion(previous)).resolved.commonReferences).toHaveLength(1);
    } finally {
      await pool.close();
      db.close();
    }
  });

  it('removes stale directories and crash leftovers, keeping the current one', async () => {
    const store = new DefinitionStore(await tempDir('store-'));
    const root = await tempDir();
    const dir = await writeVersion(root, 'test-cases/mini/v1.0.0', minimalCase('mini'));
    const input = async () => ({
      read: await readVersion(root, dir), sourceDir: dir, checkoutRoot: root,
      contentHash: await contentHash(dir, root), fingerprint: await statFingerprint(dir, root),
    });
    const old = await store.writeVersion(await input());
    await stageVersion(store, 'test-cases/mini/v1.0.0', root); // never committed: a crashed scan
    const current = await store.writeVersion(await input());
    expect(old).not.toBe(current);
    expect(await readdir(store.versionRoot('mini', 'v1.0.0'))).toHaveLength(3);
    const removed = await store.removeStaleDirs('mini', 'v1.0.0', current);
    expect(removed).toHaveLength(2);
    expect(await readdir(store.versionRoot('mini', 'v1.0.0'))).toEqual([current.split('/').at(-1)]);
    expect((await stat(join(current, 'resolved.json'))).isFile()).toBe(true);
    await store.removeVersion('mini', 'v1.0.0');
    await expect(stat(store.versionRoot('mini', 'v1.0.0'))).rejects.toThrow();
  });

  it('refuses slugs and versions that could escape the store', () => {
    const store = new DefinitionStore('/store');
    expect(() => store.versionRoot('../etc', 'v1.0.0')).toThrow();
    expect(() => store.versionRoot('pong', '../../v1')).toThrow();
    expect(store.versionRoot('pong', 'v1.1.0')).toBe('/store/pong/v1.1.0');
  });
});

import { join } from 'node:path';
import type { Queue } from 'bullmq';
import { openBlobStore } from '../blob/open-blob-store.js';
import type { Config } from '../config.js';
import type { BackendStore } from '../db/dialect.js';
import { storeMeta } from '../db/store-meta.js';
import { findChromium } from '../render/find-chromium.js';
import { createRenderPool, type RenderPool } from '../render/render-pool.js';
import { requestSnapshotRefresh } from '../snapshot/snapshot-queue.js';
import { catalogIndex } from './catalog-index.js';
import { definitionCopies } from './definition-copies.js';
import { DefinitionStore } from './definition-store.js';
import type { IngestDeps } from './ingest-scan.js';

export const definitionStoreRoot = (config: Config) => join(config.dataDir, 'definitions');

/**
 * What an ingest worker needs, for whichever process runs it. The render pool (and its
 * Chromium) starts on the first mockup, so a process that never ingests never launches one.
 */
export function ingestDeps(config: Config, backendStore: BackendStore, snapshotQueue: Queue): IngestDeps & { close(): Promise<void> } {
  let pool: RenderPool | null = null;
  const blobs = openBlobStore(config);
  const root = definitionStoreRoot(config);
  return {
    catalogDir: config.catalogDir,
    index: catalogIndex(backendStore),
    meta: storeMeta(backendStore),
    store: new DefinitionStore(root, definitionCopies(blobs, root)),
    async render(target, rootDir) {
      pool ??= createRenderPool({ chromiumPath: findChromium(config.chromiumPath ?? undefined), threads: config.renderThreads });
      const rendered = await pool.render({ htmlPath: target.htmlFile, rootDir, outPath: target.outFile, ...(target.viewport ? { viewport: target.viewport } : {}) });
      return rendered.blockedUrls;
    },
    onReingested: () => requestSnapshotRefresh(snapshotQueue),
    async close() {
      blobs.close();
      await pool?.close();
    },
  };
}

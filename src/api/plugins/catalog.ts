import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { catalogIndex, type CatalogIndex } from '../../catalog/catalog-index.js';
import { ingestDeps } from '../../catalog/ingest-deps.js';
import { createIngestQueue, followIngest, startIngestWorker, type ProgressEntry } from '../../catalog/ingest-queue.js';
import type { IngestRequest } from '../../catalog/ingest-scan.js';
import { storedVersions, type StoredVersions } from '../../catalog/stored-versions.js';
import { bullConnection, redisOptionsFromUrl } from '../../redis/managed-redis.js';
import { createSnapshotQueue } from '../../snapshot/snapshot-queue.js';

declare module 'fastify' {
  interface FastifyInstance {
    catalog: { index: CatalogIndex; versions: StoredVersions };
    ingest: { follow(request: IngestRequest): AsyncGenerator<ProgressEntry> };
  }
}

/** The definition store's index and reader, and the ingest queue (with its worker when this process runs workers). */
async function catalog(app: FastifyInstance) {
  const { config, db } = app;
  const connection = bullConnection(config.redisUrl!);
  const prefix = config.redisPrefix;
  const snapshotQueue = createSnapshotQueue(connection, prefix);
  const ingestQueue = createIngestQueue({ connection, prefix });
  const index = catalogIndex(db);

  let stopWorker = async () => {};
  if (config.runWorkers) {
    const deps = ingestDeps(config, db, snapshotQueue);
    const progressWriter = new Redis(redisOptionsFromUrl(config.redisUrl!));
    const worker = startIngestWorker({ connection, prefix }, deps, progressWriter);
    worker.on('error', (error) => app.log.error({ err: error }, 'ingest worker error'));
    stopWorker = async () => {
      await worker.close();
      await deps.close();
      progressWriter.disconnect();
    };
  }

  app.decorate('catalog', { index, versions: storedVersions(index) });
  app.decorate('ingest', {
    async *follow(request: IngestRequest) {
      // XREAD BLOCK holds its connection: one per follower.
      const reader = new Redis(redisOptionsFromUrl(config.redisUrl!));
      try {
        yield* followIngest(ingestQueue, reader, prefix, request);
      } finally {
        reader.disconnect();
      }
    },
  });
  app.addHook('onClose', async () => {
    await stopWorker();
    await ingestQueue.close();
    await snapshotQueue.close();
  });
}

export default fp(catalog, { name: 'catalog', fastify: '5.x', dependencies: ['store'] });

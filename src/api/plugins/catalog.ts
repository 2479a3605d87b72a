import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { catalogIndex, type CatalogIndex } from '../../catalog/catalog-index.js';
import { createIngestQueue, followIngest, type ProgressEntry } from '../../catalog/ingest-queue.js';
import { definitionCopies, sweepCopiesEvery } from '../../catalog/definition-copies.js';
import { definitionStoreRoot } from '../../catalog/ingest-deps.js';
import type { IngestRequest } from '../../catalog/ingest-scan.js';
import { storedVersions, type StoredVersions } from '../../catalog/stored-versions.js';
import { closeQueues, queueProducerConnection, reportOutages } from '../../redis/redis-connections.js';
import { createSnapshotQueue } from '../../snapshot/snapshot-queue.js';

declare module 'fastify' {
  interface FastifyInstance {
    catalog: { index: CatalogIndex; versions: StoredVersions };
    ingest: { follow(request: IngestRequest, signal?: AbortSignal): AsyncGenerator<ProgressEntry> };
  }
}

/** The definition store's index and reader, and the ingest queue (its processor is a background worker). */
async function catalog(app: FastifyInstance) {
  const { config } = app;
  const connection = queueProducerConnection(config.redisUrl);
  const prefix = config.redisPrefix;
  const snapshotQueue = createSnapshotQueue(connection, prefix);
  const ingestQueue = createIngestQueue({ connection, prefix });
  reportOutages(snapshotQueue, 'snapshot-queue', app.log);
  reportOutages(ingestQueue, 'ingest-queue', app.log);
  const index = catalogIndex(app.store);

  const copies = definitionCopies(app.blobs, definitionStoreRoot(config));
  const stopSweeping = sweepCopiesEvery(copies, index, app.log);
  app.decorate('catalog', { index, versions: storedVersions(index, copies) });
  app.decorate('ingest', {
    follow: (request: IngestRequest, signal?: AbortSignal) => followIngest(ingestQueue, app.streams.tail, prefix, request, signal),
  });
  app.addHook('onClose', async () => {
    stopSweeping();
    await closeQueues(ingestQueue, snapshotQueue);
  });
}

export default fp(catalog, { name: 'catalog', fastify: '5.x', dependencies: ['store', 'blob-store', 'streams'] });

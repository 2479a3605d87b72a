import { UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { createSnapshotQueue } from '../snapshot/snapshot-queue.js';
import { SECOND } from '../time.js';
import { ingestDeps } from './ingest-deps.js';
import { CatalogUnavailableError } from './catalog-unavailable-error.js';
import { writeIngestProgress, type ProgressEntry } from './ingest-queue.js';
import { runIngestScan, UnknownSelectorError, type IngestEvent, type IngestReport, type IngestRequest } from './ingest-scan.js';
import { orderedWrites } from './ordered-writes.js';

/**
 * Ingest scans, one at a time across the deployment (the API and every `npm run worker`):
 * two scans at once would race on prune and stale-directory removal. A request made while
 * another scan runs waits its turn.
 */
export const ingestProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.ingest,
  concurrency: 1,
  globalConcurrency: 1,
  options: { lockDuration: 5 * 60 * SECOND },
  start({ config, db, connection }) {
    const snapshotQueue = createSnapshotQueue(connection, config.redisPrefix);
    const deps = ingestDeps(config, db, snapshotQueue);
    const progress = new Redis(redisOptionsFromUrl(config.redisUrl));
    return {
      async processor(job): Promise<IngestReport> {
        const write = (entry: ProgressEntry) => writeIngestProgress(progress, config.redisPrefix, job.id!, entry);
        // Lines are written in order; the scan waits for none of them.
        const lines = orderedWrites(write);
        const emit = (event: IngestEvent) => lines.push(event);
        try {
          const report = await runIngestScan(deps, job.data as IngestRequest, emit);
          await lines.settled();
          await write({ event: 'report', report });
          return report;
        } catch (error) {
          await lines.settled();
          const message = error instanceof Error ? error.message : String(error);
          await write({ event: 'error', message, ...errorCode(error) });
          throw new UnrecoverableError(message);
        }
      },
      async close() {
        await deps.close();
        await snapshotQueue.close();
        progress.disconnect();
      },
    };
  },
};

/** The HTTP error a scan that failed before its first line answers with. */
function errorCode(error: unknown): { code?: 'not_found' | 'catalog_unavailable' } {
  if (error instanceof UnknownSelectorError) return { code: 'not_found' };
  if (error instanceof CatalogUnavailableError) return { code: 'catalog_unavailable' };
  return {};
}

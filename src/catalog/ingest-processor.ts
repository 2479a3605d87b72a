import { UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { closeQueues, reportOutages } from '../redis/redis-connections.js';
import { createSnapshotQueue } from '../snapshot/snapshot-queue.js';
import { SECOND } from '../time.js';
import { ingestDeps } from './ingest-deps.js';
import { writeIngestProgress, type ProgressEntry } from './ingest-queue.js';
import { runIngestScan, UnknownSelectorError, type IngestEvent, type IngestReport, type IngestRequest } from './ingest-scan.js';

/** Ingest scans, one at a time in each process; a request made while another scan runs waits its turn. */
export const ingestProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.ingest,
  concurrency: 1,
  options: { lockDuration: 5 * 60 * SECOND },
  start({ config, db, connection, log }) {
    const snapshotQueue = createSnapshotQueue(connection, config.redisPrefix);
    const deps = ingestDeps(config, db, snapshotQueue);
    const progress = new Redis(redisOptionsFromUrl(config.redisUrl));
    reportOutages(progress, 'ingest-progress', log);
    return {
      async processor(job): Promise<IngestReport> {
        const write = (entry: ProgressEntry) => writeIngestProgress(progress, config.redisPrefix, job.id!, entry);
        // Lines are written in order; the scan waits for none of them.
        let chain = Promise.resolve();
        const emit = (event: IngestEvent) => {
          chain = chain.then(() => write(event));
        };
        try {
          const report = await runIngestScan(deps, job.data as IngestRequest, emit);
          await chain;
          await write({ event: 'report', report });
          return report;
        } catch (error) {
          await chain;
          const message = error instanceof Error ? error.message : String(error);
          await write({ event: 'error', message, ...(error instanceof UnknownSelectorError ? { status: 404 } : {}) });
          throw new UnrecoverableError(message);
        }
      },
      async close() {
        await deps.close();
        await closeQueues(snapshotQueue);
        progress.disconnect();
      },
    };
  },
};

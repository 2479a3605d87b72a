import { UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { closeQueues, reportOutages } from '../redis/redis-connections.js';
import { createSnapshotQueue } from '../snapshot/snapshot-queue.js';
import { SECOND } from '../time.js';
import { ingestDeps } from './ingest-deps.js';
import { beatWhileScanning } from './ingest-heartbeat.js';
import { CatalogUnavailableError } from './catalog-unavailable-error.js';
import { IngestRefusedError } from './ingest-guard.js';
import { createIngestQueue, INTERRUPTED_LINE, STALLED_REASON, writeIngestProgress, type ProgressEntry, type ScanErrorCode } from './ingest-queue.js';
import { runIngestScan, UnknownSelectorError, type IngestEvent, type IngestReport, type IngestRequest } from './ingest-scan.js';
import { orderedWrites } from './ordered-writes.js';

/** Queued by each process that starts the ingest worker: removes what a crashed scan left, in the scans' own turn. */
export const SWEEP_STAGING_JOB = 'sweep-staging';

/**
 * Ingest scans, one at a time across the deployment (the API and every `npm run worker`):
 * two scans at once would race on prune and stale-directory removal. A request made while
 * another scan runs waits its turn.
 *
 * A scan whose process dies (crash, kill -9) is never re-run unasked: once its lock lapses
 * (`lockDuration`; the stalled check runs every `stalledInterval`), the next worker to meet
 * it fails it (`maxStalledCount: 0`) and its follower gets a closing error line. The staging
 * folders it left are swept at the start of the next scan, and by a sweep job each process
 * queues when it starts its ingest worker; both run in the scans' turn, so no sweep can
 * remove a running scan's staging folder.
 */
export const ingestProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.ingest,
  concurrency: 1,
  globalConcurrency: 1,
  options: { lockDuration: 30 * SECOND, stalledInterval: 5 * SECOND, maxStalledCount: 0 },
  start({ config, store, connection, log }) {
    const snapshotQueue = createSnapshotQueue(connection, config.redisPrefix);
    const deps = ingestDeps(config, store, snapshotQueue);
    const progress = new Redis(redisOptionsFromUrl(config.redisUrl));
    reportOutages(progress, 'ingest-progress', log);
    const ingestQueue = createIngestQueue({ connection, prefix: config.redisPrefix });
    ingestQueue.add(SWEEP_STAGING_JOB, {}).catch((error: Error) => log.warn({ err: error }, 'could not queue the staging sweep'));
    return {
      async processor(job): Promise<IngestReport | { removed: string[] }> {
        if (job.name === SWEEP_STAGING_JOB) return { removed: await deps.store.sweepStaging() };
        const write = (entry: ProgressEntry) => writeIngestProgress(progress, config.redisPrefix, job.id!, entry);
        // Lines are written in order; the scan waits for none of them.
        const lines = orderedWrites(write);
        const emit = (event: IngestEvent) => lines.push(event);
        // Before the first line: a follower that has seen a line may take a missing beat for a death.
        const heartbeat = await beatWhileScanning(progress, config.redisPrefix, job.id!);
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
        } finally {
          // After the closing line, so no follower still reading meets a scan without a beat.
          await heartbeat.stop();
        }
      },
      async onFailed(job, error) {
        if (job.name === SWEEP_STAGING_JOB || error.message !== STALLED_REASON) return;
        await writeIngestProgress(progress, config.redisPrefix, job.id!, INTERRUPTED_LINE);
      },
      async close() {
        await deps.close();
        await closeQueues(ingestQueue, snapshotQueue);
        progress.disconnect();
      },
    };
  },
};

/** The HTTP error a scan that failed before its first line answers with. */
function errorCode(error: unknown): { code?: ScanErrorCode } {
  if (error instanceof UnknownSelectorError) return { code: 'not_found' };
  if (error instanceof CatalogUnavailableError) return { code: 'catalog_unavailable' };
  if (error instanceof IngestRefusedError) return { code: 'ingest_refused' };
  return {};
}

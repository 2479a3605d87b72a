import { Redis } from 'ioredis';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { closeQueues, reportOutages } from '../redis/redis-connections.js';
import { createSnapshotQueue, requestSnapshotRefresh } from '../snapshot/snapshot-queue.js';
import { artifactService } from './artifact-service.js';
import { redisNotificationPublisher } from './notification-publisher.js';
import { publishJobs } from './publish-jobs.js';
import { publishLiveWriter } from './publish-live.js';
import { runPublishJob, type PublishPayload } from './publish-run.js';
import { runRows } from './run-rows.js';

/** Releases runs; several at once, since a release mostly waits on the artifact service. */
export const publishProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.publish,
  concurrency: 4,
  start({ config, store, connection, log }) {
    const redis = new Redis(redisOptionsFromUrl(config.redisUrl));
    reportOutages(redis, 'publish', log);
    const snapshotQueue = createSnapshotQueue(connection, config.redisPrefix);
    const deps = {
      store,
      rows: runRows(store),
      jobs: publishJobs(store),
      artifacts: artifactService({ url: config.artifactsUrl, serviceToken: config.artifactsServiceToken }),
      notifications: redisNotificationPublisher(redis, config.redisPrefix),
      requestSnapshot: () => requestSnapshotRefresh(snapshotQueue),
      writeLine: (publishJobId: string) => publishLiveWriter(redis, config.redisPrefix, publishJobId),
      onError: (error: unknown, context: string) => log.warn({ err: error }, `publish: ${context} failed`),
    };
    return {
      processor: (job) => runPublishJob(deps, job.data as PublishPayload),
      async close() {
        await closeQueues(snapshotQueue);
        redis.disconnect();
      },
    };
  },
};

import { Redis } from 'ioredis';
import { catalogIndex } from '../catalog/catalog-index.js';
import { definitionCopies, sweepCopiesEvery } from '../catalog/definition-copies.js';
import { definitionStoreRoot } from '../catalog/ingest-deps.js';
import { storedVersions } from '../catalog/stored-versions.js';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { reportOutages } from '../redis/redis-connections.js';
import { runGrades } from '../runs/run-grades.js';
import { runRows } from '../runs/run-rows.js';
import { openBlobStore } from '../blob/open-blob-store.js';
import { snapshotLock, WORKER_LOCK_WAIT } from './snapshot-lock.js';
import { snapshotStore } from './snapshot-store.js';
import { snapshotWriter } from './write-snapshot.js';

/** Regenerates the public snapshot; refresh requests made meanwhile coalesce into one job. */
export const snapshotProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.snapshot,
  start({ config, store, log }) {
    const redis = new Redis(redisOptionsFromUrl(config.redisUrl));
    reportOutages(redis, 'snapshot', log);
    const rows = runRows(store);
    const index = catalogIndex(store);
    const blobs = openBlobStore(config);
    // The grader fetches copies too: a worker machine sweeps its own cache as the API does.
    const copies = definitionCopies(blobs, definitionStoreRoot(config));
    const stopSweeping = sweepCopiesEvery(copies, index, log);
    const writer = snapshotWriter({
      store,
      rows,
      grades: runGrades({ store, rows, index, versions: storedVersions(index, copies) }),
      blobs,
      output: snapshotStore(config, blobs).output,
      deployHook: config.snapshotDeployHook,
      onWarning: (message) => log.warn({}, `snapshot: ${message}`),
      exclusive: snapshotLock(redis, config.redisPrefix, WORKER_LOCK_WAIT),
    });
    return {
      processor: () => writer.refresh(),
      close: async () => {
        stopSweeping();
        blobs.close();
        await redis.quit().then(() => undefined, () => redis.disconnect());
      },
    };
  },
};

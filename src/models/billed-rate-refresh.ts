import { Queue, type ConnectionOptions } from 'bullmq';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { DAY } from '../time.js';
import { modelCatalogStore } from './model-catalog-store.js';
import { refreshBilledRates } from './observe-billed-rate.js';
import { createRouterClient } from './router-client.js';

const SCHEDULER_ID = 'billed-rate-refresh';

/** Every 24 hours, observe each curated model's billed rate. Upserting the scheduler is idempotent, so every API process may call it. */
export async function scheduleBilledRateRefresh(connection: ConnectionOptions, prefix: string): Promise<void> {
  const queue = new Queue(BACKGROUND_QUEUES.billedRates, { connection, prefix });
  try {
    await queue.upsertJobScheduler(SCHEDULER_ID, { every: DAY }, { name: 'refresh', opts: { removeOnComplete: 10, removeOnFail: 10 } });
  } finally {
    await queue.close();
  }
}

export const billedRateRefreshProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.billedRates,
  start({ config, store: backendStore, log }) {
    const store = modelCatalogStore(backendStore);
    const client = createRouterClient({ baseUrl: config.routerBaseUrl, apiKey: config.routerApiKey ?? undefined });
    return {
      async processor() {
        const failures: string[] = [];
        const result = await refreshBilledRates(store, client, (slug, error) => failures.push(`${slug}: ${error instanceof Error ? error.message : String(error)}`));
        if (failures.length > 0) log.warn({ failures }, `billed-rate refresh: ${failures.length} model(s) failed`);
        return { ...result, failures };
      },
    };
  },
};

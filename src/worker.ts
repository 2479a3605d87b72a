/**
 * `npm run worker`: a process that runs the background queue workers (the queues of
 * BACKGROUND_PROCESSORS that WORKER_QUEUES lists, all by default) beside the API. It serves no HTTP. It shares the API's machine and
 * DATA_DIR (the store is SQLite on that disk), and its Redis: REDIS_URL, or the managed
 * redis-server's socket under DATA_DIR/redis.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { configOrExit } from './runtime/config-or-exit.js';
import { startBackgroundWorkers } from './queue/background-workers.js';
import { BACKGROUND_PROCESSORS } from './queue/background-processors.js';
import { openDatabase } from './db/open-database.js';
import { sqliteStore } from './db/dialect.js';
import type { StoreSchema } from './db/store-schema.js';
import { redactRedisUrl, redisOptionsFromUrl } from './redis/managed-redis.js';
import { installProcessPolicy } from './runtime/process-policy.js';
import { exitWithParent } from './runtime/node-child.js';
import { serveProcessMetrics } from './metrics/serve-process-metrics.js';

async function main() {
  const config = configOrExit();
  const log = pino({ level: config.logLevel, base: { process: 'worker' } });
  installProcessPolicy(log);
  const managedSocket = join(config.dataDir, 'redis', 'redis.sock');
  const redisUrl = config.redisUrl ?? (existsSync(managedSocket) ? `redis+unix://${managedSocket}` : null);
  if (!redisUrl) {
    console.error(`REDIS_URL is not set and no managed redis-server socket exists at ${managedSocket}: point REDIS_URL at the deployment's Redis.`);
    process.exit(2);
  }
  const probe = new Redis({ ...redisOptionsFromUrl(redisUrl), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    console.error(`Redis at ${redactRedisUrl(redisUrl)} could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  } finally {
    probe.disconnect();
  }
  // Background jobs write the same store the API reads: this process shares DATA_DIR with it.
  const db = openDatabase(join(config.dataDir, 'backend.sqlite'));
  const workers = await startBackgroundWorkers(BACKGROUND_PROCESSORS, { config: { ...config, redisUrl }, db, store: sqliteStore<StoreSchema>(db), log });
  console.log(`Worker running queues ${workers.queues.join(', ')} on ${redactRedisUrl(redisUrl)} (prefix ${config.redisPrefix}, data in ${config.dataDir})`);
  const metrics = config.metricsPort === null ? null : await serveProcessMetrics(config.host, config.metricsPort);
  if (metrics) console.log(`Metrics at http://${config.host}:${config.metricsPort}/metrics`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`${signal}: letting running jobs finish, then exiting...`);
    metrics?.close();
    await workers.close();
    db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  exitWithParent((reason) => void shutdown(`its launcher stopped (${reason})`));
}

main().catch((error: unknown) => {
  console.error('The worker could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});

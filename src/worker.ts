/**
 * `npm run worker`: a process that runs the background queue workers (the queues of
 * BACKGROUND_PROCESSORS that WORKER_QUEUES lists, all by default) beside the API. It serves no HTTP. It shares the API's
 * store (PostgreSQL at DATABASE_URL, or else the SQLite file under the API's DATA_DIR) and
 * its Redis: REDIS_URL, or the managed redis-server's socket under DATA_DIR/redis.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { configOrExit } from './runtime/config-or-exit.js';
import { startBackgroundWorkers } from './queue/background-workers.js';
import { BACKGROUND_PROCESSORS } from './queue/background-processors.js';
import { openStore } from './db/open-store.js';
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
  // Background jobs write the same store the API reads: its PostgreSQL, or its SQLite file under the shared DATA_DIR.
  const opened = await openStore(config, {
    onIdleError: (error) => log.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool opens a new one when next needed'),
  });
  const workers = await startBackgroundWorkers(BACKGROUND_PROCESSORS, { config: { ...config, redisUrl }, store: opened.store, log });
  console.log(`Worker running queues ${workers.queues.join(', ')} on ${redactRedisUrl(redisUrl)} (prefix ${config.redisPrefix}, store ${opened.location}, data in ${config.dataDir})`);
  const metrics = config.metricsPort === null ? null : await serveProcessMetrics(config.host, config.metricsPort);
  if (metrics) console.log(`Metrics at http://${config.host}:${config.metricsPort}/metrics`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`${signal}: letting running jobs finish, then exiting...`);
    metrics?.close();
    await workers.close();
    await opened.close();
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

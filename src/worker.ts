/**
 * `npm run worker`: a process that runs the background queue workers (ingest, render,
 * publish, probes as each area registers them) against the deployment's Redis, so a
 * deployment adds machines by starting more of these. It serves no HTTP and needs REDIS_URL
 * (or, on the API's own box, the managed redis-server's socket under DATA_DIR/redis).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startBackgroundWorkers } from './queue/background-workers.js';
import './queue/register-background-processors.js';
import { redisOptionsFromUrl } from './redis/managed-redis.js';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

async function main() {
  const config = readConfig();
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
    console.error(`Redis at ${redisUrl} could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  } finally {
    probe.disconnect();
  }
  const workers = await startBackgroundWorkers({ ...redisOptionsFromUrl(redisUrl), maxRetriesPerRequest: null }, config.redisPrefix, (queue, error) =>
    console.error(`background worker for ${queue} failed:`, error.message),
  );
  console.log(
    workers.queues.length > 0
      ? `Worker running queues ${workers.queues.join(', ')} on ${redisUrl} (prefix ${config.redisPrefix})`
      : `Worker connected to ${redisUrl} (prefix ${config.redisPrefix}); no background queues are registered yet.`,
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`${signal}: letting running jobs finish, then exiting...`);
    await workers.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // With no processor registered nothing holds the event loop; stay up until told to stop.
  setInterval(() => {}, 1 << 30);
}

main().catch((error: unknown) => {
  console.error('The worker could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * `npm start`: the only place that listens. Starts what the deployment does not
 * provide (a managed redis-server, the bundled auth service), serves the API, and
 * shuts everything down on SIGTERM/SIGINT (a second signal exits at once).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { configOrExit } from '../runtime/config-or-exit.js';
import { openDatabase } from '../db/open-database.js';
import { startManagedRedis } from '../redis/managed-redis.js';
import { startAuthChild } from '../runtime/auth-child.js';
import { buildApp } from './app.js';

type Cleanup = () => Promise<void> | void;

async function main() {
  const config = configOrExit();
  mkdirSync(config.dataDir, { recursive: true });
  const cleanups: Cleanup[] = [];
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      console.error(`${signal} again: exiting now.`);
      process.exit(1);
    }
    closing = true;
    console.log(`${signal}: finishing in-flight requests and shutting down...`);
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error('shutdown step failed:', error);
      }
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  let redisUrl = config.redisUrl;
  if (!redisUrl) {
    const redis = await startManagedRedis({ dir: join(config.dataDir, 'redis') });
    cleanups.push(() => redis.stop());
    redisUrl = redis.url;
    console.log(`Managed redis-server at ${redis.url} (data in ${join(config.dataDir, 'redis')})`);
  }

  let authUrl = config.authUrl;
  if (!authUrl) {
    const auth = await startAuthChild(process.env, config.authPort);
    cleanups.push(() => auth.stop());
    authUrl = auth.url;
    console.log(`Auth service at ${auth.url} (accounts in ${join(config.dataDir, 'auth.sqlite')})`);
  }

  const db = openDatabase(join(config.dataDir, 'backend.sqlite'));
  cleanups.push(() => void db.close());
  const app = await buildApp({ config: { ...config, redisUrl, authUrl }, db });
  cleanups.push(() => app.close());
  await app.listen({ host: config.host, port: config.port });
  console.log(`Serving http://${config.host}:${config.port} (data in ${config.dataDir}, catalog ${config.catalogDir})`);
}


main().catch((error: unknown) => {
  console.error('The service could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});

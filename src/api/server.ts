/**
 * The API process: the only place that listens. `npm start` runs it under the supervisor
 * (src/supervisor.ts), which hands it REDIS_URL and AUTH_URL; a deployment that provides
 * both may run it alone. Shuts down on SIGTERM/SIGINT, or when its supervisor disappears,
 * within SHUTDOWN_LIMIT_MS whatever Redis does (a second signal exits at once).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { configOrExit } from '../runtime/config-or-exit.js';
import { openDatabase } from '../db/open-database.js';
import { announceProgress, announceReady, exitWithParent } from '../runtime/node-child.js';
import { installProcessPolicy } from '../runtime/process-policy.js';
import { SECOND } from '../time.js';
import { buildApp } from './app.js';

/** The longest a shutdown may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 10 * SECOND;

async function main() {
  const config = configOrExit();
  const { redisUrl, authUrl } = config;
  if (!redisUrl || !authUrl) {
    console.error('REDIS_URL and AUTH_URL must both be set to run the API process alone; `npm start` starts Redis and the auth service for it.');
    process.exit(2);
  }
  mkdirSync(config.dataDir, { recursive: true });
  installProcessPolicy(pino({ level: config.logLevel === 'silent' ? 'error' : config.logLevel, base: { process: 'api' } }));
  const db = openDatabase(join(config.dataDir, 'backend.sqlite'));
  let app: FastifyInstance | undefined;

  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) {
      console.error(`${reason} again: exiting now.`);
      process.exit(1);
    }
    closing = true;
    console.log(`${reason}: finishing in-flight requests and shutting down...`);
    setTimeout(() => {
      console.error(`shutdown took longer than ${SHUTDOWN_LIMIT_MS / SECOND} s; exiting now.`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    // Still booting: nothing serves yet, and what the boot opened ends with the process.
    if (!app) process.exit(0);
    try {
      await app.close();
    } catch (error) {
      console.error('shutdown step failed:', error);
    }
    db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Before the boot, which may take minutes at scale: a supervisor that stops meanwhile
  // must not leave this process behind.
  exitWithParent((reason) => void shutdown(`the supervisor stopped (${reason})`));

  // A boot reconciling a large queue reports how far it got, so the supervisor waits for it.
  app = await buildApp({ config: { ...config, redisUrl, authUrl }, db, jobs: { onBootProgress: announceProgress } });
  await app.listen({ host: config.host, port: config.port });
  console.log(`Serving http://${config.host}:${config.port} (data in ${config.dataDir}, catalog ${config.catalogDir})`);
  announceReady(`http://${config.host}:${config.port}`);
}

main().catch((error: unknown) => {
  console.error('The service could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});

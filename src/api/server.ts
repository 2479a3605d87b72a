/**
 * The API process: the only place that listens. `npm start` runs it under the supervisor
 * (src/supervisor.ts), which hands it REDIS_URL and AUTH_URL; a deployment that provides
 * both may run it alone. Shuts down on SIGTERM/SIGINT, or when its supervisor disappears,
 * within SHUTDOWN_LIMIT_MS whatever Redis does (a second signal exits at once). A disk that
 * refuses the boot's writes, or a PostgreSQL store it cannot reach, leaves it serving health
 * until the boot goes through.
 */
import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { configOrExit } from '../runtime/config-or-exit.js';
import { openStore, type OpenedStore } from '../db/open-store.js';
import { storageFullCode } from '../db/storage-full.js';
import { storeUnavailableReason } from '../db/store-errors.js';
import { announceProgress, announceReady, exitWithParent } from '../runtime/node-child.js';
import { installProcessPolicy } from '../runtime/process-policy.js';
import { SECOND } from '../time.js';
import { buildApp } from './app.js';
import { buildDegradedApp, type BootRefusal } from './degraded-app.js';

/** The longest a shutdown may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 10 * SECOND;
/** While the store's disk refuses the boot's writes, the boot is tried again this often. */
const BOOT_RETRY_MS = 5 * SECOND;

async function main() {
  const config = configOrExit();
  const { redisUrl, authUrl } = config;
  if (!redisUrl || !authUrl) {
    console.error('REDIS_URL and AUTH_URL must both be set to run the API process alone; `npm start` starts Redis and the auth service for it.');
    process.exit(2);
  }
  mkdirSync(config.dataDir, { recursive: true });
  const log = pino({ level: config.logLevel === 'silent' ? 'error' : config.logLevel, base: { process: 'api' } });
  installProcessPolicy(log);
  const url = `http://${config.host}:${config.port}`;
  let opened: OpenedStore | undefined;
  let app: FastifyInstance | undefined;
  /** Serves health while a full disk or an unreachable store stops the boot. */
  let degraded: FastifyInstance | undefined;

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
    // Still booting: nothing serves yet (or only health), and what the boot opened ends with the process.
    if (!app) process.exit(0);
    try {
      // Answers go on, each closing its connection, until clients and balancers moved on.
      await app.drain.begin();
      await app.close();
      // The port stopped listening during the drain, so app.close did not wait for the
      // connections still answering: wait here, as its server.close would have.
      await app.drain.closed;
    } catch (error) {
      console.error('shutdown step failed:', error);
    }
    await opened?.close().catch((error: unknown) => console.error('closing the store failed:', error));
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Before the boot, which may take minutes at scale: a supervisor that stops meanwhile
  // must not leave this process behind.
  exitWithParent((reason) => void shutdown(`the supervisor stopped (${reason})`));

  const boot = async () => {
    const candidate = await openStore(config, {
      onIdleError: (error) => log.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool opens a new one when next needed'),
    });
    try {
      // A boot reconciling a large queue reports how far it got, so the supervisor waits for it.
      app = await buildApp({ config: { ...config, redisUrl, authUrl }, db: candidate.sqlite, store: candidate.store, jobs: { onBootProgress: announceProgress } });
      opened = candidate;
    } catch (error) {
      await candidate.close();
      throw error;
    }
  };

  // A disk that refuses the boot's writes (migrations, the boot's reconcile), or a PostgreSQL
  // store that cannot be reached, would end the process, and its supervisor would start it
  // again and again with nothing listening: the port serves health and says why it is not
  // ready instead, and the boot is tried again until the store takes it.
  let refused: BootRefusal | undefined;
  for (;;) {
    try {
      await boot();
      break;
    } catch (error) {
      refused = bootRefusal(error);
      if (!refused) throw error;
      if (!degraded) {
        log.error({ err: error }, refused.status === 'storage-full'
          ? 'the store refuses the writes the boot needs: serving health only until it takes them'
          : 'the store (PostgreSQL) cannot be reached: serving health only until it can');
        degraded = await buildDegradedApp(config, () => refused!);
        await degraded.listen({ host: config.host, port: config.port });
        announceReady(url);
      }
      await sleep(BOOT_RETRY_MS);
    }
  }
  if (degraded) {
    await degraded.close();
    log.info(refused!.status === 'storage-full' ? 'the store takes writes again: the boot went through' : 'the store is reachable again: the boot went through');
  }
  await app!.listen({ host: config.host, port: config.port });
  console.log(`Serving ${url} (store ${opened!.location}, data in ${config.dataDir}, catalog ${config.catalogDir})`);
  announceReady(url);
}

/** Why the store refused the boot, when it is worth waiting out (a full disk, PostgreSQL unreachable); null otherwise. */
function bootRefusal(error: unknown): BootRefusal | undefined {
  const retry = `the boot is tried again every ${BOOT_RETRY_MS / SECOND} s.`;
  const code = storageFullCode(error);
  if (code !== null) return { status: 'storage-full', error, detail: `The API could not start: the disk refuses the writes its boot needs (${code}); ${retry}` };
  const reason = storeUnavailableReason(error);
  if (reason !== null) return { status: 'store-unavailable', error, detail: `The API could not start: the store (PostgreSQL) cannot be reached (${reason}); ${retry}` };
  return undefined;
}

main().catch((error: unknown) => {
  console.error('The service could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});

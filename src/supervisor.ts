/**
 * `npm start`: the supervisor of the embedded deployment. One process owns the managed
 * redis-server (unless REDIS_URL names one), the bundled auth service (unless AUTH_URL
 * names one) and the API process; restarts whichever dies, with a doubling backoff, logged;
 * and stops them all on SIGTERM/SIGINT: the API first, Redis last, one SIGTERM each; a second
 * signal exits at once. The children lead process groups of their own, so a terminal's
 * Ctrl-C reaches only this process. They stop by themselves when it disappears
 * (the API and auth service watch their IPC channel, redis-server gets PR_SET_PDEATHSIG),
 * and a start that finds what a crashed one left behind (pid files under DATA_DIR/run)
 * stops it before starting anything, so two redis-servers never share a data directory.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { redactRedisUrl, startManagedRedis } from './redis/managed-redis.js';
import { configOrExit } from './runtime/config-or-exit.js';
import { DataDirBusyError, lockDataDir, type PidFiles } from './runtime/data-dir-lock.js';
import { exitWithParent, startNodeChild } from './runtime/node-child.js';
import { installProcessPolicy } from './runtime/process-policy.js';
import { SupervisedChild, type SupervisorLog } from './runtime/supervised-child.js';
import { SECOND } from './time.js';

const entry = (path: string) => fileURLToPath(new URL(path, import.meta.url));

async function main() {
  const config = configOrExit();
  const log = pino({ level: config.logLevel === 'silent' ? 'warn' : config.logLevel, base: { process: 'supervisor' } });
  installProcessPolicy(log);
  mkdirSync(config.dataDir, { recursive: true });
  let pids: PidFiles;
  try {
    pids = await lockDataDir(config.dataDir, ({ name, pid }) => log.warn({ child: name, pid }, `stopping the ${name} process a previous start left running`));
  } catch (error) {
    if (error instanceof DataDirBusyError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const children: SupervisedChild[] = [];
  const supervise = async (child: SupervisedChild) => {
    children.push(child);
    await child.start();
  };
  let stopping: Promise<void> | null = null;
  const stopAll = (reason: string) => {
    stopping ??= (async () => {
      log.info({ reason }, 'stopping every child');
      for (const child of children) child.halt();
      // The API first (it drains requests), Redis last (it flushes its append-only file).
      for (const child of [...children].reverse()) await child.stop().catch((error) => log.error({ err: error }, 'a child did not stop cleanly'));
      pids.release();
    })();
    return stopping;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      void stopAll(signal).then(() => process.exit(0));
    });
  }
  exitWithParent((reason) => void stopAll(reason).then(() => process.exit(0)));

  try {
    // The bundled auth service and the API share a relay token minted for this start, so the
    // queue dashboard's logins are throttled by the browser's address (AUTH_RELAY_TOKEN).
    if (!config.authUrl && !config.authRelayToken) process.env.AUTH_RELAY_TOKEN = randomBytes(32).toString('hex');
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (!config.redisUrl) env.REDIS_URL = await superviseRedis(join(config.dataDir, 'redis'), supervise, pids, log);
    if (!config.authUrl) env.AUTH_URL = await superviseAuth(config.authPort, supervise, pids, log);
    await supervise(
      new SupervisedChild(
        { name: 'api', start: () => startNodeChild(entry('./api/server.js'), { label: 'the API', env }), onStarted: (child) => pids.record('api', child.pid) },
        log,
      ),
    );
    log.info({ url: `http://${config.host}:${config.port}`, redis: redactRedisUrl(env.REDIS_URL!), auth: env.AUTH_URL }, 'supervising Redis, the auth service and the API');
  } catch (error) {
    console.error('The service could not start:', error instanceof Error ? error.message : error);
    await stopAll('start failed');
    process.exit(1);
  }
}

async function superviseRedis(dir: string, supervise: (child: SupervisedChild) => Promise<void>, pids: PidFiles, log: SupervisorLog): Promise<string> {
  let address: { url: string; port: number } | null = null;
  await supervise(
    new SupervisedChild(
      {
        name: 'redis',
        // A restart listens where the first start did, so every client reconnects by itself.
        start: async () => {
          const redis = await startManagedRedis({ dir, ownProcessGroup: true, ...(address ? { port: address.port } : {}) });
          address = { url: redis.url, port: redis.port };
          return redis;
        },
        onStarted: (child) => pids.record('redis', child.pid),
      },
      log,
    ),
  );
  log.info({ url: address!.url, dir }, 'managed redis-server started');
  return address!.url;
}

async function superviseAuth(port: number, supervise: (child: SupervisedChild) => Promise<void>, pids: PidFiles, log: SupervisorLog): Promise<string> {
  let url = `http://127.0.0.1:${port}`;
  await supervise(
    new SupervisedChild(
      {
        name: 'auth',
        start: async () => {
          const child = await startNodeChild(entry('./auth/server.js'), {
            label: `the auth service (port ${port}; set AUTH_PORT if another program holds it)`,
            env: { ...process.env, AUTH_PORT: String(port) },
            stopGraceMs: 5 * SECOND,
          });
          url = child.url || url;
          return child;
        },
        onStarted: (child) => pids.record('auth', child.pid),
      },
      log,
    ),
  );
  return url;
}

main().catch((error: unknown) => {
  console.error('The supervisor failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * The standalone auth service: `npm run auth`, or started by `npm start` as a child
 * process. Reads HOST (AUTH_HOST), AUTH_PORT, DATA_DIR, AUTH_DATABASE_URL, DATABASE_URL, AUTH_TOKEN_LIFETIME_HOURS,
 * AUTH_RELAY_TOKEN, REGISTRATION, CORS_ORIGINS, LOG_LEVEL.
 */
import { fileURLToPath } from 'node:url';
import { configOrExit } from '../runtime/config-or-exit.js';
import { pino } from 'pino';
import { announceReady, exitWithParent } from '../runtime/node-child.js';
import { installProcessPolicy } from '../runtime/process-policy.js';
import { buildAuthApp } from './app.js';
import { authStoreLocation, describeAuthStore, openAuthStore } from './auth-store.js';

async function main() {
  const config = configOrExit();
  const logger = pino({ level: config.logLevel === 'silent' ? 'error' : config.logLevel, base: { process: 'auth' } });
  installProcessPolicy(logger);
  const location = authStoreLocation(config);
  const store = await openAuthStore(location, config.databasePoolSize);
  logger.info(`accounts are kept in ${describeAuthStore(location)}`);
  const app = await buildAuthApp({
    store,
    tokenLifetimeMs: config.authTokenLifetimeMs,
    relayToken: config.authRelayToken,
    registration: config.registration,
    corsOrigins: config.corsOrigins,
    logLevel: config.logLevel,
  });
  const host = process.env.AUTH_HOST ?? '127.0.0.1';
  await app.listen({ host, port: config.authPort });
  // The supervisor (npm start) waits for this before it starts the API.
  announceReady(`http://${host}:${config.authPort}`);

  let closing = false;
  const shutdown = async () => {
    if (closing) process.exit(1);
    closing = true;
    await app.close();
    await store.db.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  exitWithParent(() => void shutdown());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

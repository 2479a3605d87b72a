import Fastify, { type FastifyInstance } from 'fastify';
import { CONTRACT_VERSION } from '../contract-version.js';
import type { Config } from '../config.js';
import { storageFull, storeUnavailable } from '../errors.js';
import crossOrigin from '../http/cross-origin.js';
import errorEnvelope, { envelopeServerOptions } from '../http/error-envelope.js';

/** Why the last boot did not go through: the readiness status it shows, the error, and the reason in words. */
export interface BootRefusal {
  status: 'storage-full' | 'store-unavailable';
  error: unknown;
  detail: string;
}

/**
 * What the API serves while its store refuses the boot (a disk that refuses the writes of
 * migrations or the boot's reconcile, or a PostgreSQL store that cannot be reached):
 * liveness, a readiness that says why it is not ready, and 503 `storage_full` or
 * `store_unavailable` with Retry-After for everything else. src/api/server.ts listens with it
 * instead of crash-looping, tries the boot again every few seconds, and hands the port to the
 * real app once the boot goes through.
 */
export async function buildDegradedApp(
  config: Pick<Config, 'logLevel' | 'corsOrigins'>,
  /** The error that stopped the last boot, and why the API is not ready. */
  refused: () => BootRefusal,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    ...envelopeServerOptions,
  });
  await app.register(errorEnvelope);
  await app.register(crossOrigin, { origins: config.corsOrigins });
  const answered = new Set(['/healthz', '/readyz']);
  app.addHook('onRequest', async (request) => {
    // Health and the cross-origin preflights answer; everything else waits for the store.
    if (request.method === 'OPTIONS' || answered.has(request.url.split('?')[0]!)) return;
    const { status, error, detail } = refused();
    if (status === 'storage-full') throw storageFull(error, detail);
    throw storeUnavailable(error, detail);
  });
  app.get('/healthz', async () => ({ status: 'ok', version: CONTRACT_VERSION, storeReady: false }));
  app.get('/readyz', async (_request, reply) =>
    reply.code(503).send({ status: refused().status, storeReady: false, detail: refused().detail }),
  );
  return app;
}

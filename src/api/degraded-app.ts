import Fastify, { type FastifyInstance } from 'fastify';
import { CONTRACT_VERSION } from '../contract-version.js';
import type { Config } from '../config.js';
import { storageFull } from '../errors.js';
import crossOrigin from '../http/cross-origin.js';
import errorEnvelope, { envelopeServerOptions } from '../http/error-envelope.js';

/**
 * What the API serves while its store's disk refuses the writes its boot needs (migrations,
 * the boot's reconcile): liveness, a readiness that says why it is not ready, and 503
 * `storage_full` with Retry-After for everything else. src/api/server.ts listens with it
 * instead of crash-looping, tries the boot again every few seconds, and hands the port to the
 * real app once the boot goes through.
 */
export async function buildDegradedApp(
  config: Pick<Config, 'logLevel' | 'corsOrigins'>,
  /** The error that stopped the last boot, and why the API is not ready. */
  refused: () => { error: unknown; detail: string },
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
    const { error, detail } = refused();
    throw storageFull(error, detail);
  });
  app.get('/healthz', async () => ({ status: 'ok', version: CONTRACT_VERSION, storeReady: false }));
  app.get('/readyz', async (_request, reply) =>
    reply.code(503).send({ status: 'storage-full', storeReady: false, detail: refused().detail }),
  );
  return app;
}

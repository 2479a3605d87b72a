import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CONTRACT_VERSION } from '../../../contract-version.js';
import { errorResponses } from '../../../contract/common.js';
import { Health, PublicConfig, Readiness } from '../../../contract/health.js';
import { storeUnreachable } from '../../../db/open-store.js';

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', { schema: { response: { 200: Health, ...errorResponses() } } }, async () => ({
    status: 'ok' as const,
    version: CONTRACT_VERSION,
    storeReady: await app.readiness.isReady(),
  }));

  app.get('/readyz', { schema: { response: { 200: Readiness, 503: Readiness, ...errorResponses() } } }, async (_request, reply) => {
    // A stopping process leaves the balancer's rotation first, while it still answers.
    if (app.drain.started) return reply.code(503).send({ status: 'draining', storeReady: false });
    // A PostgreSQL store that cannot be reached takes the process out of rotation, latched readiness or not.
    const unreachable = await storeUnreachable(app.store);
    if (unreachable !== null) return reply.code(503).send({ status: 'store-unavailable', storeReady: false, detail: unreachable });
    const status = await app.readiness.status();
    return reply.code(status === 'ready' ? 200 : 503).send({ status, storeReady: status === 'ready' });
  });

  app.get('/config', { schema: { response: { 200: PublicConfig, ...errorResponses() } } }, async () => ({
    artifactsUrl: app.config.artifactsUrl,
    arenaUrl: app.config.arenaUrl,
    dashboardUrl: app.config.dashboardUrl,
    snapshotUrl: app.config.snapshotUrl,
  }));
};

export default healthRoutes;

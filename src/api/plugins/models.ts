import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { scheduleBilledRateRefresh } from '../../models/billed-rate-refresh.js';
import { modelCatalogStore, type ModelCatalogStore } from '../../models/model-catalog-store.js';
import { queueProducerConnection } from '../../redis/redis-connections.js';
import { createRouterClient, type RouterClient } from '../../models/router-client.js';

declare module 'fastify' {
  interface FastifyInstance {
    models: ModelCatalogStore;
    router: RouterClient;
  }
}

/** The model catalog store and the routing-provider client the deployment spends its own key with. */
async function models(app: FastifyInstance) {
  app.decorate('models', modelCatalogStore(app.db));
  app.decorate('router', createRouterClient({ baseUrl: app.config.routerBaseUrl, apiKey: app.config.routerApiKey ?? undefined }));
  await scheduleBilledRateRefresh(queueProducerConnection(app.config.redisUrl), app.config.redisPrefix);
}

export default fp(models, { name: 'models', fastify: '5.x', dependencies: ['store'] });

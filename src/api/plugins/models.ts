import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { modelCatalogStore, type ModelCatalogStore } from '../../models/model-catalog-store.js';
import { createRouterClient, type RouterClient } from '../../models/router-client.js';

declare module 'fastify' {
  interface FastifyInstance {
    models: ModelCatalogStore;
    router: RouterClient;
  }
}

/** The model catalog store and the routing-provider client the deployment spends its own key with (its daily billed-rate refresh is scheduled with the run jobs' recurring jobs). */
async function models(app: FastifyInstance) {
  app.decorate('models', modelCatalogStore(app.store));
  app.decorate('router', createRouterClient({ baseUrl: app.config.routerBaseUrl, apiKey: app.config.routerApiKey ?? undefined }));
}

export default fp(models, { name: 'models', fastify: '5.x', dependencies: ['store'] });

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listHarnessConfig, setHarnessCap } from '../../../jobs/harness-caps.js';
import { errorResponses } from '../../../contract/common.js';
import { HarnessConfigBody, HarnessConfigList, HarnessParams } from '../../../contract/harness-config.js';

const harnessConfigRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/harness-config', { schema: { response: { 200: HarnessConfigList, ...errorResponses() } } }, async () =>
    listHarnessConfig(app.harnessConfig),
  );

  // The contract names PUT; the original console writes with POST. Both answer the whole list.
  app.route({
    method: ['PUT', 'POST'],
    url: '/harness-config/:slug',
    config: { auth: 'operator' },
    schema: { params: HarnessParams, body: HarnessConfigBody, response: { 200: HarnessConfigList, ...errorResponses(400, 401, 403, 404, 502) } },
    handler: async (request) => setHarnessCap(app.runJobs, app.harnessConfig, request.params.slug, request.body.maxParallelism),
  });
};

export default harnessConfigRoutes;

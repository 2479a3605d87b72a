import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deploymentStatus } from '../../../ops/deployment-status.js';
import { errorResponses } from '../../../contract/common.js';
import { DeploymentStatus } from '../../../contract/status.js';

const statusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const status = deploymentStatus(app);
  app.get('/status', { schema: { response: { 200: DeploymentStatus, ...errorResponses(503) } } }, () => status());
};

export default statusRoutes;

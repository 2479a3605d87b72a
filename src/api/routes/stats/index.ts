import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { CabinetStats } from '../../schemas/runs.js';

const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/stats/cabinet', { schema: { response: { 200: CabinetStats, ...errorResponses() } } }, async () => app.runs.stats());
};

export default statsRoutes;

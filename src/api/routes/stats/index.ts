import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../../contract/common.js';
import { CabinetStats } from '../../../contract/runs.js';
import { ModelAccuracyOut, ProviderStatsOut } from '../../../contract/stats.js';

const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const stats = app.statsReader;
  app.get('/stats/cabinet', { schema: { response: { 200: CabinetStats, ...errorResponses(503) } } }, () => stats.read('cabinet'));
  app.get('/stats/providers', { schema: { response: { 200: ProviderStatsOut, ...errorResponses(503) } } }, () => stats.read('providers'));
  app.get('/stats/model-accuracy', { schema: { response: { 200: ModelAccuracyOut, ...errorResponses(503) } } }, () => stats.read('model-accuracy'));
};

export default statsRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { statsReader } from '../../../stats/stats-reader.js';
import { errorResponses } from '../../schemas/common.js';
import { CabinetStats } from '../../schemas/runs.js';
import { ModelAccuracyOut, ProviderStatsOut } from '../../schemas/stats.js';

const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const stats = statsReader(app.db);
  app.addHook('onClose', () => stats.close());
  app.get('/stats/cabinet', { schema: { response: { 200: CabinetStats, ...errorResponses(429) } } }, () => stats.read('cabinet'));
  app.get('/stats/providers', { schema: { response: { 200: ProviderStatsOut, ...errorResponses(429) } } }, () => stats.read('providers'));
  app.get('/stats/model-accuracy', { schema: { response: { 200: ModelAccuracyOut, ...errorResponses(429) } } }, () => stats.read('model-accuracy'));
};

export default statsRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { modelAccuracy } from '../../../stats/model-accuracy.js';
import { providerStats } from '../../../stats/provider-stats.js';
import { errorResponses } from '../../schemas/common.js';
import { CabinetStats } from '../../schemas/runs.js';
import { ModelAccuracyOut, ProviderStatsOut } from '../../schemas/stats.js';

const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const providers = providerStats(app.db);
  const accuracy = modelAccuracy(app.db);
  app.get('/stats/cabinet', { schema: { response: { 200: CabinetStats, ...errorResponses() } } }, async () => app.runs.stats());
  app.get('/stats/providers', { schema: { response: { 200: ProviderStatsOut, ...errorResponses() } } }, async () => providers.read());
  app.get('/stats/model-accuracy', { schema: { response: { 200: ModelAccuracyOut, ...errorResponses() } } }, async () => accuracy());
};

export default statsRoutes;

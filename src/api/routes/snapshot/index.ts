import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { SnapshotRefreshOut } from '../../schemas/runs.js';

/** `POST /snapshot/refresh`: regenerates the public snapshot now, outside the coalescing queue. */
const snapshotRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/snapshot/refresh', { schema: { response: { 200: SnapshotRefreshOut, ...errorResponses() } } }, async () => app.runs.snapshot.refresh());
};

export default snapshotRoutes;

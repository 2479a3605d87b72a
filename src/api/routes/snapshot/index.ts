import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { publicFileHeaders, snapshotFile, snapshotServePrefix } from '../../../snapshot/serve-snapshot.js';
import { errorResponses } from '../../../contract/common.js';
import { SnapshotRefreshOut } from '../../../contract/runs.js';

/**
 * `POST /snapshot/refresh`: regenerates the public snapshot now, outside the coalescing
 * queue. When SNAPSHOT_URL has a path, the snapshot folder is also served read-only under
 * it (GET and HEAD, files only).
 */
const snapshotRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/snapshot/refresh', { schema: { response: { 200: SnapshotRefreshOut, ...errorResponses() } } }, async () => app.runs.snapshot.refresh());

  const prefix = snapshotServePrefix(app.config.snapshotUrl);
  if (!prefix) return;
  app.get(`${prefix}/*`, {
    schema: { params: Type.Object({ '*': Type.String() }), response: { 200: Type.Unknown({ description: 'a snapshot file' }), ...errorResponses(404) } },
  }, async (request, reply) => {
    const file = await snapshotFile(app.config.snapshotDir, request.params['*']);
    if (!file) throw notFound(`The snapshot has no file ${request.params['*'] || '(a folder is not listed)'}.`);
    // Public data a gallery on another origin reads; refreshed in place, so revalidate.
    return reply.headers({ ...publicFileHeaders(file), 'access-control-allow-origin': '*', 'cache-control': 'no-cache' }).send(createReadStream(file.path));
  });
};

export default snapshotRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { contentTypeFor } from '../../../catalog/content-type-for.js';
import { publicFileHeaders, snapshotServePrefix } from '../../../snapshot/serve-snapshot.js';
import { errorResponses } from '../../../contract/common.js';
import { SnapshotRefreshOut } from '../../../contract/runs.js';

/**
 * `POST /snapshot/refresh`: regenerates the public snapshot now, outside the queue; calls
 * coalesce in the writer, and one that waits past the lock's short wait answers 503. When SNAPSHOT_URL has a path, the snapshot folder is also served read-only under
 * it (GET and HEAD, files only).
 */
const snapshotRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/snapshot/refresh', { schema: { response: { 200: SnapshotRefreshOut, ...errorResponses(503) } } }, async () => app.runs.snapshot.refresh());

  const prefix = snapshotServePrefix(app.config.snapshotUrl);
  if (!prefix) return;
  app.get(`${prefix}/*`, {
    schema: { params: Type.Object({ '*': Type.String() }), response: { 200: Type.Unknown({ description: 'a snapshot file' }), ...errorResponses(404, 429, 503) } },
  }, async (request, reply) => {
    const relative = request.params['*'];
    const contentType = contentTypeFor(relative);
    // Public data a gallery on another origin reads; refreshed in place, so revalidate.
    const headers = (size: number) => ({ ...publicFileHeaders({ size, contentType }), 'access-control-allow-origin': '*', 'cache-control': 'no-cache' });
    const sent = await app.publicFiles.send(request, reply, app.publicFiles.snapshot(relative), headers);
    if (!sent) throw notFound(`The snapshot has no file ${relative || '(a folder is not listed)'}.`);
    return sent;
  });
};

export default snapshotRoutes;

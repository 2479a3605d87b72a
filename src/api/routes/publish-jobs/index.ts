import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { errorResponses } from '../../schemas/common.js';
import { PublishJobParams } from '../../schemas/runs.js';

const NDJSON = 'application/x-ndjson';

/** `GET /publish-jobs/{id}/live`: the job's lines replayed, then followed; a bare newline while idle; closed after the result. */
const publishJobRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/publish-jobs/:id/live', {
    schema: { params: PublishJobParams, response: { 200: Type.String({ description: 'NDJSON publish lines' }), ...errorResponses(404) } },
  }, async (request, reply) => {
    if (!app.runs.publishJobs.get(request.params.id)) throw notFound(`No publish job ${request.params.id}.`);
    const lines = app.runs.followPublish(request.params.id);
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, { 'content-type': NDJSON, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    let gone = false;
    out.on('close', () => {
      gone = true;
    });
    try {
      for await (const line of lines) {
        if (gone) break;
        out.write(line === null ? '\n' : `${JSON.stringify(line)}\n`);
      }
    } catch (error) {
      request.log.warn({ err: error }, 'publish live stream failed');
    } finally {
      await lines.return(undefined);
      out.end();
    }
  });
};

export default publishJobRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { streamNdjson } from '../../../http/ndjson-stream.js';
import { errorResponses } from '../../../contract/common.js';
import { PublishJobParams } from '../../../contract/runs.js';

/** `GET /publish-jobs/{id}/live`: the job's lines replayed, then followed; a bare newline while idle; closed after the result. */
const publishJobRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/publish-jobs/:id/live', {
    schema: { params: PublishJobParams, response: { 200: Type.String({ description: 'NDJSON publish lines' }), ...errorResponses(404, 429, 503) } },
  }, async (request, reply) => {
    if (!(await app.runs.publishJobs.get(request.params.id))) throw notFound(`No publish job ${request.params.id}.`);
    const signal = app.streams.track(request, reply);
    return streamNdjson(reply, app.runs.followPublish(request.params.id, signal), signal);
  });
};

export default publishJobRoutes;

import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contentTypeFor } from '../../../catalog/content-type-for.js';
import { notFound } from '../../../errors.js';
import { deleteRun } from '../../../runs/delete-run.js';
import { requestPublish } from '../../../runs/publish-run.js';
import { getRun, listRuns, runEvents } from '../../../runs/read-runs.js';
import { showcaseKey } from '../../../runs/showcase-path.js';
import { submitReview } from '../../../runs/submit-review.js';
import { publicFileHeaders } from '../../../snapshot/serve-snapshot.js';
import { sendJsonText } from '../../send-json-text.js';
import { ErrorEnvelope, errorResponses } from '../../../contract/common.js';
import {
  DeletedOut, ListRunsQuery, PublishAccepted, ReviewBody, ReviewResult, RunDetailOut, RunEventsOut, RunIdParams, RunListOut, ShowcaseParams,
  ShowcaseStored, ShowcaseUploadHeaders, UnreadableList, UnreadableQuery,
} from '../../../contract/runs.js';

const runRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { runs } = app;
  const warn = (message: string) => app.log.warn(`runs: ${message}`);

  app.get('/runs', { schema: { querystring: ListRunsQuery, response: { 200: RunListOut, ...errorResponses(400) } } }, async (request, reply) => {
    const page = await listRuns(runs, request.query);
    // Summary pages arrive as JSON text spliced from stored cards; sent as is, not re-serialized.
    if ('json' in page) return sendJsonText(reply, page.json);
    return page;
  });

  app.get('/runs/unreadable', { schema: { querystring: UnreadableQuery, response: { 200: UnreadableList, ...errorResponses(400) } } }, async (request) =>
    runs.unreadable(request.query.offset, request.query.limit));

  app.get('/runs/:id', { schema: { params: RunIdParams, response: { 200: RunDetailOut, ...errorResponses(404) } } }, async (request) =>
    getRun(runs, request.params.id));

  app.get('/runs/:id/events', { schema: { params: RunIdParams, response: { 200: RunEventsOut, ...errorResponses(404) } } }, async (request, reply) =>
    sendJsonText(reply, await runEvents(runs, request.params.id)));

  app.get('/runs/:id/showcase/:file', { schema: { params: ShowcaseParams, response: { 200: Type.Unknown({ description: 'the media file' }), ...errorResponses(404, 429, 503) } } }, async (request, reply) => {
    // Only a name an upload could have stored is looked up: never a key from the raw path.
    const key = showcaseKey(request.params.id, request.params.file);
    const contentType = contentTypeFor(request.params.file);
    const sent = key ? await app.publicFiles.send(request, reply, app.publicFiles.blob(key), (size) => publicFileHeaders({ size, contentType })) : null;
    if (!sent) throw notFound(`Run ${request.params.id} has no showcase file ${request.params.file}.`);
    return sent;
  });

  // The driver's upload: the raw body is the file, whatever Content-Type it claims (the
  // extension decides what it is), so this route alone streams every body unparsed.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    uploads.withTypeProvider<TypeBoxTypeProvider>().put('/runs/:id/showcase/:file', {
      config: { auth: 'job-header' },
      schema: {
        params: ShowcaseParams,
        headers: ShowcaseUploadHeaders,
        response: { 200: ShowcaseStored, 201: ShowcaseStored, 413: ErrorEnvelope, 415: ErrorEnvelope, ...errorResponses(401, 404, 422, 503) },
      },
    }, async (request, reply) => {
      const length = request.headers['content-length'];
      const stored = await runs.uploadShowcase({
        runId: request.params.id,
        file: request.params.file,
        jobId: request.headers['x-svc-job-id']!,
        contentLength: length === undefined ? undefined : Number(length),
        body: request.body as Readable | undefined,
      });
      return reply.code(stored.created ? 201 : 200).send(stored);
    });
  });

  app.post('/runs/:id/reviews', {
    config: { auth: 'account' },
    schema: { params: RunIdParams, body: ReviewBody, response: { 200: ReviewResult, ...errorResponses(400, 401, 404, 422, 502) } },
  }, async (request) => {
    const result = await submitReview({ ...runs, versions: app.catalog.versions, onPublishedChanged: runs.requestSnapshot }, request.params.id, request.account!, request.body);
    // The review is stored; what follows it (an auto top-up) never fails it.
    await app.scheduleOwners.reviewFollowUps.run(request.account!, request.params.id);
    return result;
  });

  app.post('/runs/:id/publish', {
    config: { auth: 'operator' },
    schema: { params: RunIdParams, response: { 202: PublishAccepted, ...errorResponses(401, 403, 404, 422, 502) } },
  }, async (request, reply) =>
    reply.code(202).send(await requestPublish({ ...runs, jobs: runs.publishJobs, queue: runs.publishQueue }, request.params.id)));

  app.delete('/runs/:id', {
    config: { auth: 'operator' },
    schema: { params: RunIdParams, response: { 200: DeletedOut, ...errorResponses(401, 403, 404, 422, 502) } },
  }, async (request) => deleteRun({ ...runs, blobs: app.blobs, onWarning: warn }, request.params.id));
};

export default runRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getRun, listRuns, runEvents } from '../../../runs/read-runs.js';
import { submitReview } from '../../../runs/submit-review.js';
import { sendJsonText } from '../../send-json-text.js';
import { errorResponses } from '../../schemas/common.js';
import { ListRunsQuery, ReviewBody, ReviewResult, RunDetailOut, RunEventsOut, RunIdParams, RunListOut } from '../../schemas/runs.js';

const runRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { runs } = app;

  app.get('/runs', { schema: { querystring: ListRunsQuery, response: { 200: RunListOut, ...errorResponses(400) } } }, async (request, reply) => {
    const page = await listRuns(runs, request.query);
    // Summary pages arrive as JSON text spliced from stored cards; sent as is, not re-serialized.
    if ('json' in page) return sendJsonText(reply, page.json);
    return page;
  });

  app.get('/runs/:id', { schema: { params: RunIdParams, response: { 200: RunDetailOut, ...errorResponses(404) } } }, async (request) =>
    getRun(runs, request.params.id));

  app.get('/runs/:id/events', { schema: { params: RunIdParams, response: { 200: RunEventsOut, ...errorResponses(404) } } }, async (request, reply) =>
    sendJsonText(reply, runEvents(runs, request.params.id)));

  app.post('/runs/:id/reviews', {
    config: { auth: 'account' },
    schema: { params: RunIdParams, body: ReviewBody, response: { 200: ReviewResult, ...errorResponses(400, 401, 404, 422, 502) } },
  }, async (request) =>
    submitReview({ ...runs, versions: app.catalog.versions, onPublishedChanged: runs.requestSnapshot }, request.params.id, request.account!, request.body));
};

export default runRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { activeJobsJson } from '../../../jobs/active-jobs.js';
import { cancelJob, cancelSweep, type Sweep } from '../../../jobs/cancel-jobs.js';
import { claimNextJob } from '../../../jobs/claim-next-job.js';
import { enqueueRun, enqueueRuns, launchAck } from '../../../jobs/enqueue-runs.js';
import { followJobLive, followedJob } from '../../../jobs/follow-job-live.js';
import { relayJobEvents } from '../../../jobs/relay-job-events.js';
import { reportJobStatus } from '../../../jobs/report-job-status.js';
import { hijackReply } from '../../../http/hijack-reply.js';
import { sendJsonStream } from '../../send-json-text.js';
import { JsonTooDeepError } from '../../../http/json-depth.js';
import { errorResponses, NoContent } from '../../../contract/common.js';
import {
  ActiveJobs, CancelSweep, ClaimedJob, JobIdParams, JobStatus, LaunchAck, LaunchBatchAck, LaunchBatchBody, LaunchBody, LaunchOriginQuery,
  RelayedEvents, StatusUpdate,
} from '../../../contract/jobs.js';

const jobsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.runJobs;

  const origins = app.scheduleOwners.origins;

  app.post('/jobs', {
    config: { auth: 'account' },
    schema: { querystring: LaunchOriginQuery, body: LaunchBody, response: { 202: LaunchAck, ...errorResponses(400, 401, 404, 422, 502) } },
  }, async (request, reply) => {
    const origin = await origins.check(request.account!.id, request.query.origin);
    return reply.code(202).send(launchAck(await enqueueRun(ctx, request.account!.id, request.body, { origin })));
  });

  app.post('/jobs/batch', {
    config: { auth: 'account' },
    schema: { querystring: LaunchOriginQuery, body: LaunchBatchBody, response: { 200: LaunchBatchAck, ...errorResponses(400, 401, 502) } },
  }, async (request) => {
    const origin = await origins.check(request.account!.id, request.query.origin);
    return { jobs: await enqueueRuns(ctx, request.account!.id, request.body.runs, { origin }) };
  });

  app.post('/jobs/next', {
    // Dispatchers are services, never pages: no cross-origin headers on the hottest route.
    config: { auth: 'service', cors: false },
    // Dispatchers poll: two info lines per claim or empty answer would bury every other line
    // and cost the claim a fifth of its time. Claims are run events and metrics; failures
    // still log.
    logLevel: 'warn',
    schema: { response: { 200: ClaimedJob, 204: NoContent, ...errorResponses(401) } },
  }, async (_request, reply) => {
    const claimed = await claimNextJob(ctx);
    if (claimed === null) return reply.code(204).send(null);
    // Already JSON text (the stored launch body spliced in, never parsed again); Fastify sends
    // a string with a JSON content type as is, so the cast only quiets the schema's typing.
    return reply.type('application/json; charset=utf-8').send(claimed as never);
  });

  // Reads of job state see this process's claims, whose rows are written just behind their answers.
  // Streamed as it is read: the list is as long as the queue.
  app.get('/jobs/active', { schema: { response: { 200: ActiveJobs, ...errorResponses() } } }, async (_request, reply) => {
    await ctx.dispatches.settled();
    return sendJsonStream(reply, activeJobsJson(ctx.jobs));
  });

  app.get('/jobs/:id', { schema: { params: JobIdParams, response: { 200: JobStatus, ...errorResponses(404) } } }, async (request) => {
    await ctx.dispatches.settled();
    const job = await ctx.jobs.get(request.params.id);
    if (!job) throw notFound(`No job ${request.params.id}.`);
    return { id: job.id, state: job.state, recordId: job.recordId, detail: job.detail };
  });

  app.post('/jobs/:id/status', {
    config: { auth: 'job' },
    schema: { params: JobIdParams, body: StatusUpdate, response: { 204: NoContent, ...errorResponses(400, 401, 404, 409, 422) } },
    // The driver (already authenticated) sent a report too deep to read: the job cannot go on
    // as if nothing had been said, so it fails, saying why; the driver still gets the 400.
    errorHandler: async (error, request) => {
      if (error instanceof JsonTooDeepError) {
        await reportJobStatus(ctx, request.params.id, { state: 'failed', detail: `The driver's status report could not be read: ${error.message}` })
          .catch((reason: unknown) => request.log.warn({ err: reason }, 'failing a job after its unreadable report'));
      }
      throw error;
    },
  }, async (request, reply) => {
    await reportJobStatus(ctx, request.params.id, request.body);
    return reply.code(204).send(null);
  });

  app.post('/jobs/:id/events', {
    config: { auth: 'job' },
    bodyLimit: 8 * 1024 * 1024,
    schema: { params: JobIdParams, body: RelayedEvents, response: { 204: NoContent, ...errorResponses(400, 401, 404, 413) } },
  }, async (request, reply) => {
    await relayJobEvents(ctx, request.params.id, request.body);
    return reply.code(204).send(null);
  });

  app.post('/jobs/:id/cancel', {
    config: { auth: 'account' },
    schema: { params: JobIdParams, response: { 200: JobStatus, ...errorResponses(401, 403, 404, 409, 502) } },
  }, async (request) => cancelJob(ctx, request.params.id, { ...request.account!, isOperator: request.isOperator }));

  for (const sweep of ['cancel-waiting', 'cancel-active', 'cancel-all'] as Sweep[]) {
    app.post(`/jobs/${sweep}`, {
      config: { auth: 'operator' },
      schema: { response: { 200: CancelSweep, ...errorResponses(401, 403, 502) } },
    }, async (request) => cancelSweep(ctx, sweep, request.account!.username));
  }

  app.get('/jobs/:id/live', {
    schema: { params: JobIdParams, response: { 200: Type.String({ description: 'NDJSON: one relayed event per line' }), ...errorResponses(404, 429, 503) } },
  }, async (request, reply) => {
    if (!(await followedJob(ctx.jobs, request.params.id))) throw notFound(`No job ${request.params.id}.`);
    const signal = app.streams.track(request, reply);
    hijackReply(reply);
    await followJobLive(ctx, app.streams.redis, app.streams.tail, request.params.id, reply.raw, { ...app.liveStreams, signal });
  });
};

export default jobsRoutes;

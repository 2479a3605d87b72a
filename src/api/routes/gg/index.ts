import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../../errors.js';
import { launchAck } from '../../../jobs/enqueue-runs.js';
import { launchGgRun } from '../../../jobs/launch-gg-run.js';
import { createGgConfig, updateGgConfig } from '../../../jobs/save-gg-config.js';
import { errorResponses, NoContent } from '../../../contract/common.js';
import { GgConfigBody, GgConfigList, GgConfigOut, GgConfigParams, GgRunBody } from '../../../contract/gg.js';
import { LaunchAck, LaunchOriginQuery } from '../../../contract/jobs.js';

const ggRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.runJobs;
  const missing = (id: string) => notFound(`No gg configuration ${id}.`);

  app.post('/gg/runs', {
    config: { auth: 'account' },
    schema: { querystring: LaunchOriginQuery, body: GgRunBody, response: { 202: LaunchAck, ...errorResponses(400, 401, 404, 422, 502) } },
  }, async (request, reply) => {
    const origin = await app.scheduleOwners.origins.check(request.account!.id, request.query.origin);
    return reply.code(202).send(launchAck(await launchGgRun(ctx, request.account!.id, request.body, { origin })));
  });

  app.get('/gg/configs', {
    config: { auth: 'account' },
    schema: { response: { 200: GgConfigList, ...errorResponses(401, 502) } },
  }, async (request) => ({ configs: await ctx.ggConfigs.list(request.account!.id) }));

  app.post('/gg/configs', {
    config: { auth: 'account' },
    schema: { body: GgConfigBody, response: { 201: GgConfigOut, ...errorResponses(400, 401, 502) } },
  }, async (request, reply) => reply.code(201).send(await createGgConfig(ctx, request.account!.id, request.body)));

  app.get('/gg/configs/:id', {
    config: { auth: 'account' },
    schema: { params: GgConfigParams, response: { 200: GgConfigOut, ...errorResponses(401, 404, 502) } },
  }, async (request) => (await ctx.ggConfigs.get(request.account!.id, request.params.id)) ?? Promise.reject(missing(request.params.id)));

  app.put('/gg/configs/:id', {
    config: { auth: 'account' },
    schema: { params: GgConfigParams, body: GgConfigBody, response: { 200: GgConfigOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => (await updateGgConfig(ctx, request.account!.id, request.params.id, request.body)) ?? Promise.reject(missing(request.params.id)));

  app.delete('/gg/configs/:id', {
    config: { auth: 'account' },
    schema: { params: GgConfigParams, response: { 204: NoContent, ...errorResponses(401, 404, 502) } },
  }, async (request, reply) => {
    if (!(await ctx.ggConfigs.delete(request.account!.id, request.params.id))) throw missing(request.params.id);
    return reply.code(204).send(null);
  });
};

export default ggRoutes;

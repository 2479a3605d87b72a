import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createGroup, deleteGroup, listGroups, updateGroup } from '../../../coverage/coverage-groups.js';
import {
  createPlan, deletePlan, getSchedule, getSettings, listPlans, planView, putSchedule, putSettings, requirePlan, updatePlan,
} from '../../../coverage/coverage-plans.js';
import { planMatrix, planSummary } from '../../../coverage/plan-matrix.js';
import { haltPlan, pausePlan, planQueue, topUpPlan } from '../../../coverage/plan-schedule-actions.js';
import { errorResponses, NoContent } from '../../../contract/common.js';
import {
  CoverageIdParams, GroupBody, GroupOut, HaltOut, MatrixOut, PauseBody, PlanBody, PlanOut, QueueOut, QueueQuery, ScheduleBody, ScheduleOut,
  SettingsBody, SettingsOut, SummaryOut, TopUpOut,
} from '../../../contract/coverage.js';

/** Every route here needs an account token and sees only that account's groups and plans. */
const coverageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.coverage;
  const auth = { auth: 'account' as const };
  const params = CoverageIdParams;

  app.get('/coverage-groups', { config: auth, schema: { response: { 200: Type.Array(GroupOut), ...errorResponses(401, 502) } } }, async (request) =>
    listGroups(ctx, request.account!.id));
  app.post('/coverage-groups', { config: auth, schema: { body: GroupBody, response: { 201: GroupOut, ...errorResponses(400, 401, 502) } } },
    async (request, reply) => reply.code(201).send(await createGroup(ctx, request.account!.id, request.body)));
  app.put('/coverage-groups/:id', { config: auth, schema: { params, body: GroupBody, response: { 200: GroupOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => updateGroup(ctx, request.account!.id, request.params.id, request.body));
  app.delete('/coverage-groups/:id', { config: auth, schema: { params, response: { 204: NoContent, ...errorResponses(401, 404, 502) } } },
    async (request, reply) => {
      deleteGroup(ctx, request.account!.id, request.params.id);
      return reply.code(204).send(null);
    });

  app.get('/coverage-settings', { config: auth, schema: { response: { 200: SettingsOut, ...errorResponses(401, 502) } } }, async (request) =>
    getSettings(ctx, request.account!.id));
  app.put('/coverage-settings', { config: auth, schema: { body: SettingsBody, response: { 200: SettingsOut, ...errorResponses(400, 401, 502) } } },
    async (request) => putSettings(ctx, request.account!.id, request.body.bufferTarget));

  app.get('/coverage-plans', { config: auth, schema: { response: { 200: Type.Array(PlanOut), ...errorResponses(401, 502) } } }, async (request) =>
    listPlans(ctx, request.account!.id));
  app.post('/coverage-plans', { config: auth, schema: { body: PlanBody, response: { 201: PlanOut, ...errorResponses(400, 401, 502) } } },
    async (request, reply) => reply.code(201).send(await createPlan(ctx, request.account!.id, request.body)));
  // Registered before `/coverage-plans/:id`; find-my-way prefers the static segment anyway.
  app.get('/coverage-plans/summary', { config: auth, schema: { response: { 200: SummaryOut, ...errorResponses(401, 502) } } }, async (request) =>
    planSummary(ctx, request.account!.id));
  app.get('/coverage-plans/:id', { config: auth, schema: { params, response: { 200: PlanOut, ...errorResponses(401, 404, 502) } } }, async (request) =>
    planView(ctx, request.account!.id, requirePlan(ctx, request.account!.id, request.params.id)));
  app.put('/coverage-plans/:id', { config: auth, schema: { params, body: PlanBody, response: { 200: PlanOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => updatePlan(ctx, request.account!.id, request.params.id, request.body));
  app.delete('/coverage-plans/:id', { config: auth, schema: { params, response: { 204: NoContent, ...errorResponses(401, 404, 502) } } },
    async (request, reply) => {
      deletePlan(ctx, request.account!.id, request.params.id);
      return reply.code(204).send(null);
    });

  app.get('/coverage-plans/:id/coverage', { config: auth, schema: { params, response: { 200: MatrixOut, ...errorResponses(401, 404, 502) } } },
    async (request) => planMatrix(ctx, request.account!.id, requirePlan(ctx, request.account!.id, request.params.id)));
  app.get('/coverage-plans/:id/schedule', { config: auth, schema: { params, response: { 200: ScheduleOut, ...errorResponses(401, 404, 502) } } },
    async (request) => getSchedule(ctx, request.account!.id, request.params.id));
  app.put('/coverage-plans/:id/schedule', {
    config: auth, schema: { params, body: ScheduleBody, response: { 200: ScheduleOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => putSchedule(ctx, request.account!.id, request.params.id, request.body));
  app.post('/coverage-plans/:id/topup', { config: auth, schema: { params, response: { 200: TopUpOut, ...errorResponses(401, 404, 502) } } },
    async (request) => topUpPlan(ctx, request.account!.id, request.params.id));
  app.get('/coverage-plans/:id/queue', {
    config: auth, schema: { params, querystring: QueueQuery, response: { 200: QueueOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => planQueue(ctx, request.account!.id, request.params.id, request.query.limit));
  app.post('/coverage-plans/:id/pause', {
    config: auth, schema: { params, body: PauseBody, response: { 200: ScheduleOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => pausePlan(ctx, request.account!.id, request.params.id, request.body.paused));
  for (const [path, scope] of [['halt', 'waiting'], ['halt-all', 'all']] as const) {
    app.post(`/coverage-plans/:id/${path}`, { config: auth, schema: { params, response: { 200: HaltOut, ...errorResponses(401, 404, 502) } } },
      async (request) => haltPlan(ctx, request.account!, request.params.id, scope));
  }
};

export default coverageRoutes;

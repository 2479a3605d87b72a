import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ladderProgress } from '../../../ladders/ladder-progress.js';
import { overrideOutcome } from '../../../ladders/ladder-outcomes.js';
import { haltLadder, ladderQueue, pauseLadder, topUpLadder } from '../../../ladders/ladder-schedule-actions.js';
import {
  createLadder, deleteLadder, getSchedule, ladderView, listLadders, putSchedule, reorderRungs, requireLadder, steerClimber, updateLadder,
} from '../../../ladders/manage-ladders.js';
import { errorResponses, NoContent } from '../../../contract/common.js';
import { HaltOut, PauseBody, QueueOut, QueueQuery, TopUpOut } from '../../../contract/coverage.js';
import {
  ClimberBody, ClimberSteeringOut, LadderBody, LadderList, LadderOut, LadderParams, LadderProgressOut, OutcomeBody, ReorderedRungOut, RungOrderBody, RungOutcomeOut,
  ScheduleBody, ScheduleOut,
} from '../../../contract/ladders.js';

/** `/ladders`: every route needs an account token and sees only that account's ladders (another's id is 404). */
const ladderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ladders;
  const config = { auth: 'account' as const };
  const params = LadderParams;

  app.get('/ladders', { config, schema: { response: { 200: LadderList, ...errorResponses(401, 502) } } }, async (request) =>
    listLadders(ctx, request.account!.id));
  app.post('/ladders', { config, schema: { body: LadderBody, response: { 201: LadderOut, ...errorResponses(400, 401, 502) } } },
    async (request, reply) => reply.code(201).send(await createLadder(ctx, request.account!.id, request.body)));
  app.get('/ladders/:id', { config, schema: { params, response: { 200: LadderOut, ...errorResponses(401, 404, 502) } } }, async (request) =>
    ladderView(ctx, requireLadder(ctx, request.account!.id, request.params.id)));
  app.put('/ladders/:id', { config, schema: { params, body: LadderBody, response: { 200: LadderOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => updateLadder(ctx, request.account!.id, request.params.id, request.body));
  app.delete('/ladders/:id', { config, schema: { params, response: { 204: NoContent, ...errorResponses(401, 404, 502) } } }, async (request, reply) => {
    deleteLadder(ctx, request.account!.id, request.params.id);
    return reply.code(204).send(null);
  });

  app.get('/ladders/:id/progress', { config, schema: { params, response: { 200: LadderProgressOut, ...errorResponses(401, 404, 502) } } },
    async (request) => ladderProgress(ctx, request.account!.id, requireLadder(ctx, request.account!.id, request.params.id)));
  app.post('/ladders/:id/rungs/order', { config, schema: { params, body: RungOrderBody, response: { 200: Type.Array(ReorderedRungOut), ...errorResponses(400, 401, 404, 502) } } },
    async (request) => reorderRungs(ctx, request.account!.id, request.params.id, request.body.rungIds));
  app.post('/ladders/:id/climbers', { config, schema: { params, body: ClimberBody, response: { 200: ClimberSteeringOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => steerClimber(ctx, request.account!.id, request.params.id, request.body));
  app.post('/ladders/:id/outcomes', { config, schema: { params, body: OutcomeBody, response: { 200: RungOutcomeOut, ...errorResponses(400, 401, 404, 409, 502) } } },
    async (request) => overrideOutcome(ctx, request.account!.id, request.params.id, request.body));

  app.get('/ladders/:id/schedule', { config, schema: { params, response: { 200: ScheduleOut, ...errorResponses(401, 404, 502) } } },
    async (request) => getSchedule(ctx, request.account!.id, request.params.id));
  app.put('/ladders/:id/schedule', { config, schema: { params, body: ScheduleBody, response: { 200: ScheduleOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => putSchedule(ctx, request.account!.id, request.params.id, request.body));
  app.post('/ladders/:id/topup', { config, schema: { params, response: { 200: TopUpOut, ...errorResponses(401, 404, 502) } } },
    async (request) => topUpLadder(ctx, request.account!.id, request.params.id));
  app.get('/ladders/:id/queue', { config, schema: { params, querystring: QueueQuery, response: { 200: QueueOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => {
      const ladder = requireLadder(ctx, request.account!.id, request.params.id);
      return ladderQueue(ctx, request.account!.id, ladder, request.query.limit);
    });
  app.post('/ladders/:id/pause', { config, schema: { params, body: PauseBody, response: { 200: ScheduleOut, ...errorResponses(400, 401, 404, 502) } } },
    async (request) => pauseLadder(ctx, request.account!.id, request.params.id, request.body.paused));
  for (const [path, scope] of [['halt', 'waiting'], ['halt-all', 'all']] as const) {
    app.post(`/ladders/:id/${path}`, { config, schema: { params, response: { 200: HaltOut, ...errorResponses(401, 404, 502) } } },
      async (request) => haltLadder(ctx, request.account!, request.params.id, scope));
  }
};

export default ladderRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, NoContent } from '../../schemas/common.js';
import {
  ClimberBody, ClimberSteeringOut, LadderBody, LadderList, LadderOut, LadderParams, RungOrderBody, ScheduleBody, ScheduleOut,
} from '../../schemas/ladders.js';

/** `/ladders`: every route needs an account token and sees only that account's ladders. */
const ladderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const store = app.ladders;
  const auth = { auth: 'account' as const };

  app.get('/ladders', { config: auth, schema: { response: { 200: LadderList, ...errorResponses(401, 502) } } }, async (request) =>
    store.list(request.account!.id));

  app.post('/ladders', { config: auth, schema: { body: LadderBody, response: { 201: LadderOut, ...errorResponses(400, 401, 502) } } }, async (request, reply) =>
    reply.code(201).send(store.create(request.account!.id, request.body)));

  app.get('/ladders/:id', { config: auth, schema: { params: LadderParams, response: { 200: LadderOut, ...errorResponses(401, 404, 502) } } }, async (request) =>
    store.get(request.account!.id, request.params.id));

  app.put('/ladders/:id', {
    config: auth,
    schema: { params: LadderParams, body: LadderBody, response: { 200: LadderOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => store.update(request.account!.id, request.params.id, request.body));

  app.delete('/ladders/:id', { config: auth, schema: { params: LadderParams, response: { 204: NoContent, ...errorResponses(401, 404, 502) } } }, async (request, reply) => {
    store.remove(request.account!.id, request.params.id);
    return reply.code(204).send(null);
  });

  app.post('/ladders/:id/rungs/order', {
    config: auth,
    schema: { params: LadderParams, body: RungOrderBody, response: { 200: LadderOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => store.reorder(request.account!.id, request.params.id, request.body.rungIds));

  app.post('/ladders/:id/climbers', {
    config: auth,
    schema: { params: LadderParams, body: ClimberBody, response: { 200: ClimberSteeringOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => store.steer(request.account!.id, request.params.id, request.body));

  app.get('/ladders/:id/schedule', { config: auth, schema: { params: LadderParams, response: { 200: ScheduleOut, ...errorResponses(401, 404, 502) } } }, async (request) =>
    store.schedule(request.account!.id, request.params.id));

  app.put('/ladders/:id/schedule', {
    config: auth,
    schema: { params: LadderParams, body: ScheduleBody, response: { 200: ScheduleOut, ...errorResponses(400, 401, 404, 502) } },
  }, async (request) => store.setSchedule(request.account!.id, request.params.id, request.body));
};

export default ladderRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../errors.js';
import { hijackReply } from '../../../http/hijack-reply.js';
import { errorResponses, NoContent } from '../../../contract/common.js';
import { StreamParams, StreamTopicsBody } from '../../../contract/notifications.js';

const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/notifications', {
    schema: { response: { 200: Type.String({ description: 'text/event-stream of named frames' }), ...errorResponses(429, 503) } },
  }, async (request, reply) => {
    // Counted against the stream caps, and subscribed, before the socket is taken over, so a
    // refusal or a Redis outage still answers in the envelope.
    app.streams.track(request, reply);
    await app.consoleStreams.subscribe();
    await app.consoleStreams.open(hijackReply(reply));
  });

  app.put('/notifications/:stream/topics', {
    schema: { params: StreamParams, body: StreamTopicsBody, response: { 204: NoContent, ...errorResponses(400, 404) } },
  }, async (request, reply) => {
    if (!(await app.consoleStreams.setTopics(request.params.stream, request.body))) {
      throw notFound(`No stream ${request.params.stream} is connected; wait for the next stream frame and apply the topics again.`);
    }
    return reply.code(204).send(null);
  });
};

export default notificationRoutes;

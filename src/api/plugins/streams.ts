import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { tooManyRequests, tooManyStreams } from '../../errors.js';
import { failFastConnection, quitConnection } from '../../redis/redis-connections.js';
import { StreamTail } from '../../redis/stream-tail.js';
import { ServerStopping } from '../../http/ndjson-stream.js';

/** What a stream refused for a cap tells its client to wait before trying again (s). */
const STREAM_RETRY_AFTER_SECONDS = 5;

declare module 'fastify' {
  interface FastifyInstance {
    streams: {
      /** Follows Redis streams for every NDJSON follower of this process over one connection. */
      tail: StreamTail;
      /** Fail-fast command connection for replays (`XRANGE`, `EXISTS`). */
      redis: Redis;
      /**
       * Admits a long-lived answer (a console stream, an NDJSON follow) and tracks it until
       * its response closes: throws 429 when its client address holds STREAMS_PER_CLIENT
       * open streams already, 503 when this process holds STREAMS_TOTAL, so call it before
       * the reply is taken over. The signal aborts when the client goes away or the server
       * shuts down (its reason then a ServerStopping), which also ends the response.
       */
      track(request: FastifyRequest, reply: FastifyReply): AbortSignal;
      /** Open streams by client address (for metrics and tests). */
      readonly openByClient: ReadonlyMap<string, number>;
    };
  }
}

/**
 * Long-lived responses (console streams, job live, ingest progress, publish lines): one
 * shared stream reader, the caps on how many are open, and the registry that ends them all
 * when the server closes, so shutdown never waits on a follower.
 */
async function streams(app: FastifyInstance) {
  const log = app.log.child({ area: 'streams' });
  const { streamsPerClient, streamsTotal } = app.config;
  const redis = await failFastConnection(app.config.redisUrl, 'streams', log);
  // Blocking reads: no command timeout on this one.
  const reader = await failFastConnection(app.config.redisUrl, 'stream-tail', log, { commandTimeout: undefined, connectionName: `${app.config.redisPrefix}:stream-tail` });
  const tail = new StreamTail(reader, redis);
  const open = new Map<ServerResponse, AbortController>();
  const byClient = new Map<string, number>();

  const admit = (client: string) => {
    const held = byClient.get(client) ?? 0;
    if (held >= streamsPerClient) {
      throw tooManyRequests(`This client address holds ${held} open streams, the limit (STREAMS_PER_CLIENT); close one or retry later.`, STREAM_RETRY_AFTER_SECONDS);
    }
    if (open.size >= streamsTotal) {
      throw tooManyStreams(`The server holds ${open.size} open streams, its limit (STREAMS_TOTAL); retry later.`, STREAM_RETRY_AFTER_SECONDS);
    }
    byClient.set(client, held + 1);
  };
  const release = (client: string) => {
    const held = (byClient.get(client) ?? 1) - 1;
    if (held > 0) byClient.set(client, held);
    else byClient.delete(client);
  };

  app.decorate('streams', {
    tail,
    redis,
    openByClient: byClient,
    track(request: FastifyRequest, reply: FastifyReply) {
      const res = reply.raw;
      const client = request.ip;
      admit(client);
      const controller = new AbortController();
      open.set(res, controller);
      res.once('close', () => {
        open.delete(res);
        release(client);
        controller.abort();
      });
      return controller.signal;
    },
  });
  app.addHook('preClose', async () => {
    tail.close();
    // Every follower ends its response when its signal aborts; one whose client stopped
    // reading would keep the connection (and the close) open: drop those soon after.
    for (const [res, controller] of [...open]) {
      controller.abort(new ServerStopping());
      setTimeout(() => res.writableFinished || res.destroy(), 1000).unref();
    }
  });
  app.addHook('onClose', async () => {
    reader.disconnect();
    await quitConnection(redis);
  });
}

export default fp(streams, { name: 'streams', fastify: '5.x', dependencies: ['store'] });

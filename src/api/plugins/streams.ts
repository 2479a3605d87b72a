import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { failFastConnection, quitConnection } from '../../redis/redis-connections.js';
import { StreamTail } from '../../redis/stream-tail.js';
import { ServerStopping } from '../ndjson-stream.js';

declare module 'fastify' {
  interface FastifyInstance {
    streams: {
      /** Follows Redis streams for every NDJSON follower of this process over one connection. */
      tail: StreamTail;
      /** Fail-fast command connection for replays (`XRANGE`, `EXISTS`). */
      redis: Redis;
      /**
       * Tracks a hijacked streaming response until it closes; the signal aborts when the client
       * goes away or the server shuts down (its reason then a ServerStopping), which also ends
       * the response.
       */
      track(res: ServerResponse): AbortSignal;
    };
  }
}

/**
 * Long-lived NDJSON responses (job live, ingest progress, publish lines): one shared
 * stream reader and the registry that ends them all when the server closes, so shutdown
 * never waits on a follower.
 */
async function streams(app: FastifyInstance) {
  const log = app.log.child({ area: 'streams' });
  const redis = await failFastConnection(app.config.redisUrl, 'streams', log);
  // Blocking reads: no command timeout on this one.
  const reader = await failFastConnection(app.config.redisUrl, 'stream-tail', log, { commandTimeout: undefined, connectionName: `${app.config.redisPrefix}:stream-tail` });
  const tail = new StreamTail(reader, redis);
  const open = new Map<ServerResponse, AbortController>();

  app.decorate('streams', {
    tail,
    redis,
    track(res: ServerResponse) {
      const controller = new AbortController();
      open.set(res, controller);
      res.once('close', () => {
        open.delete(res);
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

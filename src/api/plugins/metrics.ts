import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import fp from 'fastify-plugin';
import { Registry } from 'prom-client';
import { deploymentRegistry } from '../../metrics/deployment-metrics.js';
import { httpRequestDuration, processRegistry, redisReconnects } from '../../metrics/process-metrics.js';

/**
 * `GET /metrics` in Prometheus text format: what this process recorded (HTTP, ingest
 * scans, renders, browser restarts, Redis reconnects, Node's own figures) merged with
 * what the store and queues hold at scrape time. Registered before the routes, so its
 * response hook times every one of them.
 */
async function metrics(app: FastifyInstance) {
  const scrape = Registry.merge([processRegistry, deploymentRegistry(app)]);

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL: one series per route, whatever the ids in the path.
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  app.jobsRedis.on('reconnecting', () => redisReconnects.inc({ connection: 'api' }));

  app.get('/metrics', {
    schema: { response: { 200: Type.String({ description: 'Prometheus text exposition format 0.0.4' }) } },
  }, async (_request, reply) =>
    reply.type(scrape.contentType).send(await scrape.metrics()),
  );
}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['operations', 'stats-reader'] });

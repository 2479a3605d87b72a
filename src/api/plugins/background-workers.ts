import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { startBackgroundWorkers } from '../../queue/background-workers.js';
import '../../queue/register-background-processors.js';
import { redisOptionsFromUrl } from '../../redis/managed-redis.js';

/** RUN_WORKERS: runs the registered background queue workers inside the API process. */
async function backgroundWorkers(app: FastifyInstance) {
  const connection = { ...redisOptionsFromUrl(app.config.redisUrl!), maxRetriesPerRequest: null };
  const workers = await startBackgroundWorkers(connection, app.config.redisPrefix, (queue, error) =>
    app.log.error({ err: error, queue }, 'background worker error'),
  );
  if (workers.queues.length > 0) app.log.info({ queues: workers.queues }, 'background workers started');
  app.addHook('onClose', () => workers.close());
}

export default fp(backgroundWorkers, { name: 'background-workers', fastify: '5.x', dependencies: ['run-jobs'] });

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { BACKGROUND_PROCESSORS } from '../../queue/background-processors.js';
import { startBackgroundWorkers } from '../../queue/background-workers.js';

/** RUN_WORKERS: runs the background queue workers inside the API process (those WORKER_QUEUES lists). */
async function backgroundWorkers(app: FastifyInstance) {
  const workers = await startBackgroundWorkers(BACKGROUND_PROCESSORS, {
    config: app.config,
    store: app.store,
    log: app.log.child({ area: 'background' }),
  });
  app.log.info({ queues: workers.queues }, 'background workers started');
  app.addHook('onClose', () => workers.close());
}

export default fp(backgroundWorkers, { name: 'background-workers', fastify: '5.x', dependencies: ['run-jobs', 'catalog'] });

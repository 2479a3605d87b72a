import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openDeploymentQueues, type DeploymentQueues } from '../../queue/deployment-queues.js';
import { failFastConnection, quitConnection } from '../../redis/redis-connections.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Read-side handles on every BullMQ queue of the deployment (status, metrics, dashboard). */
    deploymentQueues: DeploymentQueues;
  }
}

/**
 * What operators read about the deployment: queue handles shared by the status route,
 * metrics and the dashboard, on a connection of their own. BullMQ loads its scripts onto
 * whatever connection a Queue uses; the claim path's connection is kept free of them.
 */
async function operations(app: FastifyInstance) {
  const log = app.log.child({ area: 'operations' });
  const redis = await failFastConnection(app.config.redisUrl!, 'operations', log, { connectionName: `${app.config.redisPrefix}:operations` });
  const queues = openDeploymentQueues(redis, app.config.redisPrefix, log);
  app.decorate('deploymentQueues', queues);
  app.addHook('onClose', async () => {
    await queues.close();
    await quitConnection(redis);
  });
}

export default fp(operations, { name: 'operations', fastify: '5.x', dependencies: ['run-jobs'] });

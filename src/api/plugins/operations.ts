import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openDeploymentQueues, type DeploymentQueues } from '../../queue/deployment-queues.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Read-side handles on every BullMQ queue of the deployment (status, metrics, dashboard). */
    deploymentQueues: DeploymentQueues;
  }
}

/** What operators read about the deployment: queue handles shared by the status route, metrics and the dashboard. */
async function operations(app: FastifyInstance) {
  const queues = openDeploymentQueues(app.jobsRedis, app.config.redisPrefix);
  app.decorate('deploymentQueues', queues);
  app.addHook('onClose', () => queues.close());
}

export default fp(operations, { name: 'operations', fastify: '5.x', dependencies: ['run-jobs'] });

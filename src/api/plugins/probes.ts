import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Queue } from 'bullmq';
import { createProbeQueue, enqueueProbe, type ProbeJob } from '../../probes/probe-processor.js';
import { probeStore, type ProbeStore } from '../../probes/probe-store.js';
import { triggerProbe, type ProbeTrigger } from '../../probes/trigger-probe.js';
import { bullConnection } from '../../redis/managed-redis.js';

declare module 'fastify' {
  interface FastifyInstance {
    probes: {
      store: ProbeStore;
      queue: Queue<ProbeJob>;
      trigger(slug: string, body: ProbeTrigger): ReturnType<typeof triggerProbe>;
    };
  }
}

/**
 * Model probes: the store and the `probes` queue. On a single box (REAP_ORPHANED_JOBS) a
 * probe still running at boot lost the process that ran it, so it is failed here, before
 * any route serves; a worker that later meets its job finds it ended and does nothing.
 */
async function probes(app: FastifyInstance) {
  const store = probeStore(app.db);
  if (app.config.reapOrphanedJobs) {
    const failed = store.failRunning('The backend restarted while this probe ran.');
    if (failed.length > 0) app.log.info({ probes: failed }, 'failed probes a previous process left running');
  }
  const queue = createProbeQueue(bullConnection(app.config.redisUrl), app.config.redisPrefix);
  app.addHook('onClose', () => queue.close());
  app.decorate('probes', {
    store,
    queue,
    trigger: (slug: string, body: ProbeTrigger) => triggerProbe({
      models: app.models,
      probes: store,
      hasRouterKey: app.config.routerApiKey !== null,
      enqueue: (probeId) => enqueueProbe(queue, probeId),
    }, slug, body),
  });
}

export default fp(probes, { name: 'probes', fastify: '5.x', dependencies: ['store', 'models'] });

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Queue } from 'bullmq';
import { createProbeQueue, enqueueProbe, type ProbeJob } from '../../probes/probe-processor.js';
import { RUNNER_STOPPED, runnerGone } from '../../probes/probe-runner.js';
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
 * Model probes: the store and the `probes` queue. A probe whose runner process is gone (a
 * previous process of this API, or a worker killed meanwhile) is failed here, before any
 * route serves; one another live process runs, or one still queued, is left alone. A worker
 * that later meets the failed probe's job finds it ended and does nothing.
 */
async function probes(app: FastifyInstance) {
  const store = probeStore(app.store);
  const failed = await store.failOrphaned(RUNNER_STOPPED, runnerGone);
  if (failed.length > 0) app.log.info({ probes: failed }, 'failed probes whose process stopped before they finished');
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

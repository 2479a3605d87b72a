import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { DeploymentStatus } from '../contract/status.js';
import { CONTRACT_VERSION } from '../contract-version.js';
import { IN_FLIGHT_STATES, type InFlightState } from '../db/job-state-counts.js';
import { storeMeta } from '../db/store-meta.js';
import { listHarnessConfig } from '../jobs/harness-caps.js';
import { SECOND } from '../time.js';
import { withinDeadline } from './within-deadline.js';

type Status = Static<typeof DeploymentStatus>;
type StateCounts = Record<InFlightState, number>;

/** How long the status read waits for Redis before it answers without the queue figures. */
const REDIS_WAIT_MS = 1 * SECOND;

const zeroCounts = (): StateCounts => Object.fromEntries(IN_FLIGHT_STATES.map((state) => [state, 0])) as StateCounts;

/**
 * What an operator asks first: is the store ready, how many jobs sit in each state (per
 * harness, beside its cap), what the BullMQ queues hold and which workers are connected.
 * SQLite answers the job figures (counted on the statistics thread); Redis answers the queue
 * figures, and a Redis that does not answer within a second leaves them null with the reason
 * rather than holding the read.
 */
export function deploymentStatus(app: FastifyInstance): () => Promise<Status> {
  const meta = storeMeta(app.store);
  return async () => {
    const jobs = zeroCounts();
    const byHarness = new Map<string, StateCounts>();
    // This process's claims not yet written count as what they are.
    await app.runJobs.dispatches.settled();
    for (const row of await app.statsReader.read('job-state-counts')) {
      jobs[row.state] += row.jobs;
      const harness = byHarness.get(row.harness) ?? zeroCounts();
      harness[row.state] += row.jobs;
      byHarness.set(row.harness, harness);
    }
    const status = await app.readiness.status();
    const redis = await withinDeadline(Promise.all([app.deploymentQueues.counts(), app.deploymentQueues.workers()]), REDIS_WAIT_MS, 'Redis');
    return {
      status,
      storeReady: status === 'ready',
      version: CONTRACT_VERSION,
      catalog: { versions: await app.catalog.index.count(), catalogVersion: await meta.get('catalog_version') },
      jobs,
      harnesses: (await listHarnessConfig(app.harnessConfig)).harnesses.map((entry) => ({
        slug: entry.slug,
        maxParallelism: entry.maxParallelism,
        jobs: byHarness.get(entry.slug) ?? zeroCounts(),
      })),
      queues: redis.ok ? redis.value[0] : null,
      workers: redis.ok ? redis.value[1] : null,
      redisError: redis.ok ? null : redis.error,
    };
  };
}

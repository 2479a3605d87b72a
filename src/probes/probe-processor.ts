import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { encodeNotification } from '../events/console-event-bus.js';
import { createRouterClient } from '../models/router-client.js';
import type { BackgroundProcessor } from '../queue/background-workers.js';
import { BACKGROUND_QUEUES, runQueueKeys } from '../queue/queue-keys.js';
import { redisOptionsFromUrl } from '../redis/managed-redis.js';
import { reportOutages } from '../redis/redis-connections.js';
import { createClassifyPool } from './classify-pool.js';
import { RUNNER_STOPPED, THIS_RUNNER } from './probe-runner.js';
import { probeStore, type Probe } from './probe-store.js';
import { runProbe } from './run-probe.js';

export interface ProbeJob {
  probeId: string;
}

export function createProbeQueue(connection: ConnectionOptions, prefix: string) {
  return new Queue<ProbeJob>(BACKGROUND_QUEUES.probes, { connection, prefix });
}

/** Queues a stored probe; the job id is the probe id, so a probe is queued once. */
export async function enqueueProbe(queue: Queue<ProbeJob>, probeId: string): Promise<void> {
  await queue.add('probe', { probeId }, { jobId: probeId, removeOnComplete: 100, removeOnFail: 100 });
}

/** The console `notification` frame of a finished probe. */
export function probeNotification(probe: Probe) {
  return {
    kind: 'probe-finished' as const,
    probeId: probe.id,
    modelSlug: probe.modelSlug,
    outcome: probe.status === 'complete' ? ('completed' as const) : ('failed' as const),
    verdict: probe.verdict,
    passRate: probe.passRate,
    message: probe.error ?? `Probe of ${probe.modelSlug} finished: ${probe.verdict}.`,
  };
}

/**
 * Runs model probes from the `probes` queue, in whichever process runs the workers. Its
 * replies are classified in a worker-thread pool; a probe's end reaches every console as a
 * `notification` frame.
 */
export const probeProcessor: BackgroundProcessor = {
  queue: BACKGROUND_QUEUES.probes,
  // Probes of different models run side by side; each keeps its own calls bounded.
  concurrency: 4,
  start({ config, store: backendStore, log }) {
    const store = probeStore(backendStore);
    const redis = new Redis(redisOptionsFromUrl(config.redisUrl));
    reportOutages(redis, 'probes', log);
    const channel = runQueueKeys(config.redisPrefix).consoleChannel;
    const pool = createClassifyPool();
    const shutdown = new AbortController();
    const client = createRouterClient({ baseUrl: config.routerBaseUrl, apiKey: config.routerApiKey ?? undefined, timeoutMs: config.probeCallTimeoutMs });
    return {
      async processor(job) {
        const { probeId } = job.data as ProbeJob;
        // A second start means the process that ran it died: its calls are lost, so is the probe.
        if ((job.attemptsStarted ?? 1) > 1) {
          const ended = await store.finish(probeId, { status: 'failed', error: RUNNER_STOPPED, verdict: null, passRate: null });
          if (!ended) return (await store.get(probeId))?.status ?? null;
        } else {
          // Named on the probe, so a boot can tell a probe whose process died from one another process runs.
          await store.takeRunner(probeId, THIS_RUNNER);
          try {
            await runProbe(probeId, {
              store,
              chat: (body, options) => client.chatCompletion(body, options),
              classify: (reply, check) => pool.classify(reply, check),
              concurrency: config.probeConcurrency,
              maxRetries: config.probeMaxRetries,
              callTimeoutMs: config.probeCallTimeoutMs,
              shutdown: shutdown.signal,
            });
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            await store.finish(probeId, { status: 'failed', error: `The probe stopped on an internal error: ${message}`, verdict: null, passRate: null });
          }
        }
        const probe = await store.get(probeId);
        if (probe && probe.status !== 'running') await redis.publish(channel, encodeNotification(probeNotification(probe)));
        return probe?.status ?? null;
      },
      // A job BullMQ gave up on (stalled too often, so its processor never ran again) must not leave its probe running.
      async onFailed(job, error) {
        const { probeId } = job.data as ProbeJob;
        if (await store.finish(probeId, { status: 'failed', error: `The probe's job failed: ${error.message}`, verdict: null, passRate: null })) {
          const probe = await store.get(probeId);
          if (probe) await redis.publish(channel, encodeNotification(probeNotification(probe)));
        }
      },
      stop: () => shutdown.abort(),
      async close() {
        await pool.close();
        redis.disconnect();
      },
    };
  },
};

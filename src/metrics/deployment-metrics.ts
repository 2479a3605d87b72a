import type { FastifyInstance } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import type { HarnessStateCount } from '../db/job-state-counts.js';
import { withinDeadline } from '../ops/within-deadline.js';
import { SECOND } from '../time.js';

/** How long a scrape waits for BullMQ's counts before it leaves them out. */
const QUEUE_COUNTS_WAIT_MS = 1 * SECOND;

/**
 * Figures read at scrape time from this API's store and queues: run jobs by state and
 * harness, held jobs, every BullMQ queue's counts, and open console streams. One registry
 * per app, merged with the process's own at `GET /metrics`.
 */
export function deploymentRegistry(app: FastifyInstance): Registry {
  const registry = new Registry();

  // Both job gauges answer from one count per scrape, read on the statistics thread: at
  // 100,000 queued jobs a count took 80 ms, which this thread spent twice a scrape.
  let jobCountsRead: Promise<HarnessStateCount[]> = Promise.resolve([]);
  new Gauge({
    name: 'evb_jobs',
    help: 'Run jobs in flight, by state (queued, pending, dispatched, starting, running) and harness.',
    labelNames: ['state', 'harness'] as const,
    registers: [registry],
    async collect() {
      // This process's claims not yet written count as what they are.
      jobCountsRead = app.runJobs.dispatches.settled().then(() => app.statsReader.read('job-state-counts'));
      const counts = await jobCountsRead;
      this.reset();
      for (const row of counts) this.set({ state: row.state, harness: row.harness }, row.jobs);
    },
  });

  new Gauge({
    name: 'evb_jobs_held',
    help: 'Run jobs held back (pending) by a harness parallelism cap or a same-model game jam.',
    registers: [registry],
    async collect() {
      this.set((await jobCountsRead).reduce((held, row) => held + (row.state === 'pending' ? row.jobs : 0), 0));
    },
  });

  // Registered before the gauge that reports whether it worked, which waits for this read:
  // a scrape starts every collect in registration order and awaits them together.
  let queueCountsRead: Promise<boolean> = Promise.resolve(false);
  new Gauge({
    name: 'evb_queue_jobs',
    help: 'BullMQ jobs per queue and state (waiting, active, delayed, prioritized, completed, failed, paused).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      const read = withinDeadline(app.deploymentQueues.counts(), QUEUE_COUNTS_WAIT_MS, 'Redis');
      queueCountsRead = read.then((queues) => queues.ok);
      const queues = await read;
      this.reset();
      for (const { name, ...states } of queues.ok ? queues.value : []) {
        for (const [state, jobs] of Object.entries(states)) this.set({ queue: name, state }, jobs);
      }
    },
  });

  new Gauge({
    name: 'evb_queue_counts_up',
    help: '1 when this scrape read the BullMQ counts, 0 when Redis did not answer in time.',
    registers: [registry],
    async collect() {
      this.set((await queueCountsRead) ? 1 : 0);
    },
  });

  new Gauge({
    name: 'evb_console_streams_open',
    help: 'Console streams (GET /notifications) this API holds open.',
    registers: [registry],
    collect() {
      this.set(app.consoleStreams.size);
    },
  });

  return registry;
}

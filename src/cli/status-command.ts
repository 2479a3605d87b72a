import type { Static } from '@sinclair/typebox';
import type { DeploymentStatus } from '../contract/status.js';
import { EXIT, type CliIo } from './cli-io.js';
import { formatTable } from './format-table.js';
import { callService, serviceUrl } from './service-client.js';

export interface StatusOptions {
  url: string;
  json?: boolean;
}

type Status = Static<typeof DeploymentStatus>;
const STATES = ['queued', 'pending', 'dispatched', 'starting', 'running'] as const;

/** `eval-backend status`: readiness, the store, jobs by state and harness, queue counts and workers. */
export async function statusCommand(options: StatusOptions, io: CliIo): Promise<number> {
  const base = serviceUrl(options.url);
  const status = (await (await callService(base, '/status', { signal: io.signal })).json()) as Status;
  if (options.json) {
    io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return EXIT.ok;
  }
  const out: string[] = [
    `Service   ${base.origin} (contract ${status.version})`,
    `Readiness ${status.status}${status.storeReady ? '' : ' (not ready: ingest a catalog)'}`,
    `Catalog   ${status.catalog.versions} version${status.catalog.versions === 1 ? '' : 's'} stored` +
      (status.catalog.catalogVersion ? `, catalog version ${status.catalog.catalogVersion}` : ''),
    '',
    'Run jobs',
    formatTable(
      ['harness', 'cap', ...STATES],
      [
        ...status.harnesses
          .filter((harness) => harness.maxParallelism !== null || STATES.some((state) => harness.jobs[state] > 0))
          .map((harness) => [harness.slug, harness.maxParallelism === null ? '-' : String(harness.maxParallelism), ...STATES.map((state) => String(harness.jobs[state]))]),
        ['all', '', ...STATES.map((state) => String(status.jobs[state]))],
      ],
    ),
    '',
  ];
  if (status.queues === null || status.workers === null) {
    out.push(`Queues    unavailable: ${status.redisError ?? 'Redis did not answer'}`);
  } else {
    out.push(
      'Queues',
      formatTable(
        ['queue', 'waiting', 'active', 'delayed', 'failed', 'completed', 'workers'],
        status.queues.map((queue) => [
          queue.name,
          String(queue.waiting + queue.prioritized + queue.paused),
          String(queue.active),
          String(queue.delayed),
          String(queue.failed),
          String(queue.completed),
          String(status.workers!.filter((worker) => worker.queue === queue.name).length),
        ]),
      ),
    );
    if (status.workers.length > 0) {
      out.push('', 'Workers', formatTable(['queue', 'connection', 'address', 'idle s'], status.workers.map((w) => [w.queue, w.name, w.addr, String(w.idleSeconds)])));
    }
  }
  io.stdout.write(`${out.join('\n')}\n`);
  return EXIT.ok;
}

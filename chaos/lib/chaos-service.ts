import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { runQueueKeys } from '../../src/queue/queue-keys.js';
import { freeLoopbackPort, redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { repoRoot } from '../../bench/lib/repo-root.js';
import { call as callOrigin, type Answer } from './json-call.js';
import { SupervisedService } from './supervised-service.js';

export const SERVICE_TOKEN = 'chaos-service-token';
export const MODEL = 'chaos/model';
export const LAUNCH = { testCase: 'beacon', version: 'v1.1.0', variant: 'base', harness: 'claude', model: MODEL };
const PREFIX = 'chaos';

export type { Answer } from './json-call.js';

/** A supervised service on a fresh DATA_DIR, with the example catalog ingested, a priced model and an operator account. */
export interface ChaosService {
  service: SupervisedService;
  operator: string;
  call(method: string, path: string, token?: string, body?: unknown, timeoutMs?: number): Promise<Answer>;
  /** Direct Redis access on the managed server's socket (reads only, for checks). */
  redis(): Redis;
  keys: ReturnType<typeof runQueueKeys>;
  close(): Promise<void>;
}

export async function startChaosService(env: Record<string, string> = {}, options: { dataDir?: string } = {}): Promise<ChaosService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'evb-chaos-'));
  const authPort = await freeLoopbackPort();
  const service = new SupervisedService({
    dataDir,
    port: await freeLoopbackPort(),
    authPort,
    env: {
      SERVICE_TOKEN,
      REDIS_PREFIX: PREFIX,
      CATALOG_DIR: join(repoRoot(), 'examples', 'catalog'),
      // No network here: the routing provider answers "refused" at once.
      ROUTER_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}`,
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  await service.start();
  const call = (method: string, path: string, token?: string, body?: unknown, timeoutMs?: number) => callOrigin(service.url, method, path, token, body, timeoutMs);
  const registered = await fetch(`http://127.0.0.1:${authPort}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'chaos', password: 'chaos-password', displayName: 'Chaos' }),
  });
  const operator = ((await registered.json()) as { token: string }).token;
  const model = await call('POST', '/models', operator, {
    slug: MODEL, listPriceInputPerMtok: 1, listPriceCachedInputPerMtok: 0.1, listPriceOutputPerMtok: 2, listPriceAsOf: '2026-11-01',
  });
  if (model.status !== 201) throw new Error(`model not created: ${model.status} ${JSON.stringify(model.body)}`);
  const ingest = await call('POST', '/ingest', undefined, { testCases: ['beacon'] }, 300_000);
  if (ingest.status !== 200) throw new Error(`ingest failed: ${ingest.status} ${JSON.stringify(ingest.body)}`);
  const clients: Redis[] = [];
  return {
    service,
    operator,
    call,
    keys: runQueueKeys(PREFIX),
    redis() {
      const client = new Redis({ ...redisOptionsFromUrl(`redis+unix://${join(dataDir, 'redis', 'redis.sock')}`), lazyConnect: true });
      client.on('error', () => {});
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.disconnect();
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Enqueues `count` launches in batches; answers the job ids. */
export async function enqueue(chaos: ChaosService, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 200) {
    const answer = await chaos.call('POST', '/jobs/batch', chaos.operator, { runs: Array.from({ length: Math.min(200, count - i) }, () => LAUNCH) });
    if (answer.status !== 200) throw new Error(`batch refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    for (const job of answer.body.jobs as Array<{ jobId?: string; error?: unknown }>) {
      if (!job.jobId) throw new Error(`launch refused: ${JSON.stringify(job)}`);
      ids.push(job.jobId);
    }
  }
  return ids;
}

/** Resident memory of a process (MiB), from /proc. */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** What every scenario prints first: the machine and how loaded it is. */
export function machineLine(): string {
  const [one, five] = loadavg();
  return `machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, load average ${one!.toFixed(2)} / ${five!.toFixed(2)} (1 / 5 min)`;
}

/** Prints a scenario's figures as aligned `name: value` lines. */
export function printFigures(figures: Record<string, string | number | boolean>): void {
  const width = Math.max(...Object.keys(figures).map((key) => key.length));
  for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(width)}  ${value}`);
}

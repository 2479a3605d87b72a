/**
 * The app the claim benchmarks drive: the real server with a service token and a fixed
 * launch catalog, filled through the real enqueue path.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { enqueueRuns } from '../../src/jobs/enqueue-runs.js';
import type { Env } from '../../src/config.js';
import type { LaunchCatalog } from '../../src/jobs/launch-catalog.js';
import { startBenchBackend, type BenchBackend } from './bench-backend.js';

export const SERVICE_TOKEN = 'bench-service-token';
export const CLAIM_HEADERS = { authorization: `Bearer ${SERVICE_TOKEN}` };
export const BENCH_LAUNCH = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'claude', model: 'bench/model' };

// The catalog is another area's; a fixed answer keeps the benchmark about the queue.
const catalog: LaunchCatalog = {
  version: async () => ({ engines: [], variants: ['base'], testType: 'end-to-end', maxRuntimeSeconds: 1800 }),
  caseExists: async () => true,
};

export interface ClaimApp extends BenchBackend {
  /** Enqueues `count` copies of `launch` (default BENCH_LAUNCH) through the real enqueue path; answers their job ids in order. */
  fill(count: number, launch?: object): Promise<string[]>;
}

/** The claim app on SQLite, or on the PostgreSQL database `env.DATABASE_URL` names. */
export async function startClaimApp(redisUrl: string, env: Env = {}): Promise<ClaimApp> {
  const backend = await startBenchBackend(redisUrl, {
    SERVICE_TOKEN,
    REDIS_PREFIX: `bench${randomUUID().slice(0, 8)}`,
    RUN_WORKERS: 'false',
    ...env,
  }, { catalog });
  await backend.app.models.create({
    slug: BENCH_LAUNCH.model, listPriceInputPerMtok: 3, listPriceCachedInputPerMtok: 0.3, listPriceOutputPerMtok: 15, listPriceAsOf: '2026-11-01',
  });
  // A billed rate on record, so no launch asks the routing provider for one behind its answer.
  await backend.app.models.observeBilledRate(BENCH_LAUNCH.model, { inputPerMtok: 3, cachedInputPerMtok: 0.3, outputPerMtok: 15 }, 'refresh');
  // Assigned onto the backend, not spread from it: a spread reads its `db` getter, which
  // fails on PostgreSQL.
  return Object.assign(backend, {
    async fill(count: number, launch: object = BENCH_LAUNCH) {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1000) {
        const results = await enqueueRuns(backend.app.runJobs, 'bench-account', Array.from({ length: Math.min(1000, count - i) }, () => launch));
        for (const result of results) {
          if (!('jobId' in result)) throw new Error(`enqueue refused (${result.code}): ${result.error}`);
          ids.push(result.jobId);
        }
      }
      return ids;
    },
  });
}

/**
 * The throughput floor of a claim: a bare Fastify route making the same batched claim call
 * on the app's queue, and answering the job as the service does, with nothing else: no
 * authentication, token, SQLite copy, metrics or hooks. Its claims are not copied to SQLite.
 */
export async function startBareClaimRoute(app: ClaimApp): Promise<{ url: string; close(): Promise<void> }> {
  const server = Fastify({ logger: false });
  const { queue } = app.app.runJobs;
  const tokenHash = 'f'.repeat(64);
  server.post('/jobs/next', async (_request, reply) => {
    const { claimed } = await queue.claim(tokenHash);
    if (!claimed) return reply.code(204).send(null);
    return reply.type('application/json; charset=utf-8').send(`{"jobId":"${claimed.id}","jobToken":"bare","request":${claimed.requestJson},"origin":null}`);
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => server.close() };
}

/**
 * Claim benchmark (`npm run bench -- claim`): claim latency with 1 dispatcher and throughput
 * with 8 and 32 concurrent dispatchers over keep-alive HTTP, beside the floors measured in
 * the same run (a Fastify no-op POST, and the raw claim script on Redis), then a correctness
 * run: 100,000 jobs claimed by 32 dispatchers, checked by job id for double claims and losses.
 * The single dispatcher runs on the server's thread, as the floors' client does; the
 * concurrent dispatchers run on a worker thread, as real dispatchers run elsewhere.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { buildApp } from '../src/api/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open-database.js';
import { enqueueRuns } from '../src/jobs/enqueue-runs.js';
import type { LaunchCatalog } from '../src/jobs/launch-catalog.js';
import { RunQueue, type QueuedRun } from '../src/queue/run-queue.js';
import { redisOptionsFromUrl } from '../src/redis/managed-redis.js';
import { measureFloors, startNoopServer } from './floors.js';
import { benchRedis } from './lib/bench-redis.js';
import type { DispatchInput, DispatchOutput } from './lib/dispatch-worker.js';
import { keepAliveClient } from './lib/keep-alive-client.js';
import { ms, printTable, summarize, timeSequential, type LatencySummary } from './lib/stats.js';

const SERVICE_TOKEN = 'bench-service-token';
const LATENCY_CLAIMS = 5000;
const THROUGHPUT_CLAIMS = 20_000;
const CORRECTNESS_JOBS = 100_000;
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'claude', model: 'bench/model' };
// The catalog is another area's; a fixed answer keeps the benchmark about the queue.
const catalog: LaunchCatalog = {
  version: () => ({ engines: [], variants: ['base'], testType: 'end-to-end', maxRuntimeSeconds: 1800 }),
  caseExists: () => true,
};

/** The raw Redis call a claim makes: the claim script alone, sequentially, on a filled queue. */
async function measureRawClaim(redisUrl: string, iterations: number): Promise<LatencySummary> {
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const queue = new RunQueue({ redis, prefix: `bench-raw-${randomUUID().slice(0, 8)}` });
  const total = iterations + 500;
  for (let i = 0; i < total; i += 1000) {
    const runs: QueuedRun[] = Array.from({ length: Math.min(1000, total - i) }, (_, j) => {
      const id = randomUUID();
      return { id, seq: i + j, harness: 'claude', jam: '', request: launch, subjectJson: `"runId":"${id}"`, origin: null, maxRuntimeSeconds: 1800 };
    });
    await queue.add(runs);
  }
  const summary = await timeSequential(iterations, 500, () => queue.claim('0'.repeat(64)));
  await redis.flushdb();
  await queue.close();
  redis.disconnect();
  return summary;
}

async function fill(app: Awaited<ReturnType<typeof buildApp>>, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1000) {
    const results = await enqueueRuns(app.runJobs, 'bench-account', Array.from({ length: Math.min(1000, count - i) }, () => launch));
    for (const result of results) {
      if (!('jobId' in result)) throw new Error(`enqueue refused (${result.code}): ${result.error}`);
      ids.push(result.jobId);
    }
  }
  return ids;
}

interface Drain {
  claimed: string[];
  answered: number;
  latency: LatencySummary;
  seconds: number;
  /** Answers that were neither a claim nor an empty queue. */
  errors: number;
}

/** Claims until 204 (or `limit` answers) with `dispatchers` concurrent keep-alive loops on a worker thread. */
async function drain(base: string, dispatchers: number, limit = Number.MAX_SAFE_INTEGER, path?: string): Promise<Drain> {
  const input: DispatchInput = { base, token: SERVICE_TOKEN, dispatchers, limit, ...(path ? { path } : {}) };
  const output = await new Promise<DispatchOutput>((done, fail) => {
    const worker = new Worker(new URL('./lib/dispatch-worker.js', import.meta.url), { workerData: input });
    worker.once('message', done);
    worker.once('error', fail);
  });
  return { claimed: output.claimed, answered: output.answered, latency: summarize(output.samplesMs), seconds: output.seconds, errors: output.errors };
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

export default async function benchClaim(): Promise<boolean> {
  const redis = await benchRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-bench-claim-'));
  const db = openDatabase(join(dataDir, 'backend.sqlite'));
  const config = {
    ...loadConfig({ DATA_DIR: dataDir, REDIS_URL: redis.url, REDIS_PREFIX: `bench${randomUUID().slice(0, 8)}`, SERVICE_TOKEN, LOG_LEVEL: 'silent', RUN_WORKERS: 'false' }),
    // Claims never ask the auth service; nothing listens here.
    authUrl: 'http://127.0.0.1:9',
    redisUrl: redis.url,
  };
  const app = await buildApp({ config, db, jobs: { catalog } });
  app.models.create({ slug: launch.model, listPriceInputPerMtok: 3, listPriceCachedInputPerMtok: 0.3, listPriceOutputPerMtok: 15, listPriceAsOf: '2026-11-01' });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
  // Ratios hold up on a busy machine; absolute rates do not. Say how busy it was.
  console.log(`\nLoad average at start (1, 5, 15 min): ${load()}`);
  try {
    const floors = await measureFloors(redis.url);
    const rawClaim = await measureRawClaim(redis.url, LATENCY_CLAIMS);

    await fill(app, LATENCY_CLAIMS + 500);
    const client = keepAliveClient(base);
    const headers = { authorization: `Bearer ${SERVICE_TOKEN}` };
    const single = await timeSequential(LATENCY_CLAIMS, 500, () => client.send('POST', '/jobs/next', undefined, headers));
    client.close();

    // The throughput floor: the same dispatchers and client against a no-op route, since on
    // two cores the server, Redis and the dispatchers all share the machine.
    const noop = await startNoopServer();
    const noopDrain = await drain(noop.url, 32, THROUGHPUT_CLAIMS, '/noop');
    await noop.close();
    const runs: Record<number, Drain> = {};
    for (const dispatchers of [8, 32]) {
      await fill(app, THROUGHPUT_CLAIMS);
      runs[dispatchers] = await drain(base, dispatchers, THROUGHPUT_CLAIMS);
    }

    const floorSum = floors.noopPost.p50 + rawClaim.p50;
    printTable('Claim latency and throughput (same run as the floors; keep-alive loopback)', [
      { measure: 'floor: Fastify no-op POST', p50: ms(floors.noopPost.p50), p99: ms(floors.noopPost.p99), 'claims/s': '', samples: floors.noopPost.count },
      { measure: 'floor: raw claim script', p50: ms(rawClaim.p50), p99: ms(rawClaim.p99), 'claims/s': '', samples: rawClaim.count },
      { measure: 'floor: raw Redis PING', p50: ms(floors.redisRoundTrip.p50), p99: ms(floors.redisRoundTrip.p99), 'claims/s': '', samples: floors.redisRoundTrip.count },
      {
        measure: 'floor: no-op POST, 32 dispatchers',
        p50: ms(noopDrain.latency.p50),
        p99: ms(noopDrain.latency.p99),
        'claims/s': `${Math.round(noopDrain.answered / noopDrain.seconds)} req/s`,
        samples: noopDrain.answered,
      },
      { measure: 'POST /jobs/next, 1 dispatcher', p50: ms(single.p50), p99: ms(single.p99), 'claims/s': Math.round(1000 / single.mean), samples: single.count },
      ...[8, 32].map((d) => ({
        measure: `POST /jobs/next, ${d} dispatchers`,
        p50: ms(runs[d]!.latency.p50),
        p99: ms(runs[d]!.latency.p99),
        'claims/s': Math.round(runs[d]!.claimed.length / runs[d]!.seconds),
        samples: runs[d]!.claimed.length,
      })),
    ]);
    const ratio = single.p50 / floorSum;
    const rate32 = runs[32]!.claimed.length / runs[32]!.seconds;
    const checks = [
      { target: 'p50 (1 dispatcher) <= 2x (no-op POST + raw claim)', measured: `${ratio.toFixed(2)}x`, result: verdict(ratio <= 2) },
      { target: 'p99 (1 dispatcher) < 5 ms', measured: ms(single.p99), result: verdict(single.p99 < 5) },
      {
        target: '>= 5,000 claims/s with 32 dispatchers',
        measured: `${Math.round(rate32)}/s (${Math.round((100 * rate32) / (noopDrain.answered / noopDrain.seconds))}% of the no-op floor)`,
        result: verdict(rate32 >= 5000),
      },
    ];

    const ids = await fill(app, CORRECTNESS_JOBS);
    const run = await drain(base, 32);
    const seen = new Set<string>();
    let doubles = 0;
    for (const id of run.claimed) {
      if (seen.has(id)) doubles += 1;
      seen.add(id);
    }
    const lost = ids.filter((id) => !seen.has(id)).length;
    const enqueued = new Set(ids);
    const strangers = [...seen].filter((id) => !enqueued.has(id)).length;
    const recorded = db.prepare(`SELECT COUNT(*) FROM jobs WHERE state = 'dispatched' AND token_hash IS NOT NULL`).pluck().get() as number;
    const expectedDispatched = LATENCY_CLAIMS + 500 + 2 * THROUGHPUT_CLAIMS + CORRECTNESS_JOBS;
    printTable(`Correctness: ${CORRECTNESS_JOBS.toLocaleString()} jobs claimed by 32 dispatchers`, [{
      enqueued: ids.length,
      claimed: run.claimed.length,
      'double claims': doubles,
      'lost jobs': lost,
      'unknown ids': strangers,
      'HTTP errors': run.errors,
      'claims/s': Math.round(run.claimed.length / run.seconds),
      'SQLite dispatched rows': `${recorded}/${expectedDispatched}`,
    }]);
    checks.push({
      target: `${CORRECTNESS_JOBS.toLocaleString()} claimed, 0 double claims, 0 lost`,
      measured: `${run.claimed.length} claimed, ${doubles} double, ${lost} lost`,
      result: verdict(run.claimed.length === CORRECTNESS_JOBS && doubles === 0 && lost === 0 && strangers === 0 && run.errors === 0 && recorded === expectedDispatched),
    });
    printTable('Targets', checks);
    console.log(`Load average at end (1, 5, 15 min): ${load()}`);
    return checks.every((check) => check.result === 'PASS');
  } finally {
    await app.close();
    db.close();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = (await benchClaim()) ? 0 : 1;

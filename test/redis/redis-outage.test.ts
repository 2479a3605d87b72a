import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { bullConnection, startManagedRedis, type ManagedRedis } from '../../src/redis/managed-redis.js';
import { SNAPSHOT_QUEUE } from '../../src/snapshot/snapshot-queue.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };

/** Times one call (ms). */
async function timed<T>(call: () => Promise<T>): Promise<[T, number]> {
  const began = Date.now();
  const result = await call();
  return [result, Date.now() - began];
}

describe('the API while its Redis is down', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evb-outage-'));
  let redis: ManagedRedis;
  let backend: TestBackend;
  let base: string;
  let http: ReturnType<typeof jobsHttp>;
  let operator: string;
  const warnings: string[] = [];
  const originals: Array<() => void> = [];

  beforeAll(async () => {
    // Its own redis-server, so killing it harms no other test file.
    redis = await startManagedRedis({ dir, persistent: true });
    backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, REDIS_URL: redis.url }, { pricedModels: [MODEL], jobs: { heartbeatMs: 200, restartGraceMs: 300 } });
    await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
    base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
    http = jobsHttp(base);
    operator = (await backend.auth.register('outage-op')).token;
    // ioredis prints "[ioredis] Unhandled error event" for a connection with no error listener,
    // and BullMQ prints a queue's connection errors when the queue has none: both through console.
    for (const method of ['error', 'warn', 'log'] as const) {
      const original = console[method].bind(console);
      originals.push(() => (console[method] = original));
      console[method] = (...args: unknown[]) => {
        const text = args.map((arg) => (arg instanceof Error ? `${arg.message}` : String(arg))).join(' ');
        if (/Unhandled error event|ENOENT|ECONNREFUSED|Connection is closed|isn't writeable/.test(text)) warnings.push(text);
        original(...args);
      };
    }
  });
  afterAll(async () => {
    for (const restore of originals) restore();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 queue_unavailable within a second, keeps serving reads, and resumes by itself when Redis is back', async () => {
    const { jobId: queued } = (await http.post('/jobs', operator, launch)).body;
    process.kill(redis.pid, 'SIGKILL');
    await redis.exited;

    for (const [method, path, token, body] of [
      ['POST', '/jobs/next', SERVICE, undefined],
      ['POST', '/jobs', operator, launch],
      ['POST', `/jobs/${queued}/cancel`, operator, undefined],
      ['POST', '/ingest', undefined, {}],
      ['GET', '/notifications', undefined, undefined],
    ] as const) {
      const [answer, ms] = await timed(() => (method === 'GET' ? http.get(path) : http.post(path, token, body)));
      expect({ path, status: answer.status, code: answer.body?.error?.code }).toEqual({ path, status: 503, code: 'queue_unavailable' });
      expect(ms, `${method} ${path} took ${ms} ms`).toBeLessThan(1500);
    }
    // Reads that need only SQLite go on.
    expect((await http.get('/jobs/active')).body.jobs.map((job: { runId: string }) => job.runId)).toEqual([queued]);
    expect((await http.get(`/jobs/${queued}`)).status).toBe(200);

    // The same address again (the supervisor restarts it there): everything reconnects on its own.
    // Should the kill beat the append-only file (Redis postpones its write while a slow fsync
    // runs), the restart heal queues the job again from SQLite once it is past the grace.
    redis = await startManagedRedis({ dir, persistent: true });
    // What the claims answered while waiting, runs of the same answer counted, for the failure message.
    const answers: Array<{ answer: string; times: number }> = [];
    const claimed = async () => {
      const { status, body } = await http.post('/jobs/next', SERVICE);
      const answer = `${status}${body?.error?.code ? ` ${body.error.code}` : ''}`;
      if (answers.at(-1)?.answer === answer) answers.at(-1)!.times += 1;
      else answers.push({ answer, times: 1 });
      return status === 200;
    };
    await until(claimed, 10_000, 'claims to work again').catch((error: Error) => {
      throw new Error(`${error.message}; claims answered ${answers.map(({ answer, times }) => `${answer} x${times}`).join(', then ')}`);
    });
    expect((await http.get(`/jobs/${queued}`)).body.state).toBe('dispatched');
    const console = await fetch(`${base}/notifications`);
    expect(console.status).toBe(200);
    await console.body?.cancel();
    // The background workers are back too: a snapshot refresh gets processed.
    const snapshots = new Queue(SNAPSHOT_QUEUE, { connection: bullConnection(redis.url), prefix: backend.config.redisPrefix });
    try {
      await backend.app.runs.requestSnapshot();
      // The refresh job removes itself once processed (it succeeds or fails, either way a worker ran it).
      await until(async () => (await snapshots.getJob('refresh')) === undefined, 15_000, 'the snapshot job to be processed');
    } finally {
      await snapshots.close();
    }
    expect(warnings).toEqual([]);
  });

  it('shuts down within 10 s while Redis is gone', async () => {
    const live = await fetch(`${base}/notifications`);
    expect(live.status).toBe(200);
    process.kill(redis.pid, 'SIGKILL');
    await redis.exited;
    const [, ms] = await timed(() => backend.close());
    expect(ms).toBeLessThan(10_000);
    await live.body?.cancel().catch(() => {});
    redis = await startManagedRedis({ dir, persistent: false });
  });
});

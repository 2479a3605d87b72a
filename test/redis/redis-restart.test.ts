import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOST_FROM_REDIS } from '../../src/jobs/reconcile-jobs.js';
import { BACKGROUND_QUEUES } from '../../src/queue/queue-keys.js';
import { bullConnection, startManagedRedis, type ManagedRedis } from '../../src/redis/managed-redis.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };
const GRACE_MS = 300;

describe('a Redis that restarts empty while the API serves', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evb-restart-'));
  let redis: ManagedRedis;
  let backend: TestBackend;
  let http: ReturnType<typeof jobsHttp>;
  let operator: string;

  beforeAll(async () => {
    // Its own redis-server, with no append-only file: a restart forgets everything.
    redis = await startManagedRedis({ dir, persistent: false });
    backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, REDIS_URL: redis.url }, { pricedModels: [MODEL], jobs: { restartGraceMs: GRACE_MS } });
    await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
    http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
    operator = (await backend.auth.register('restart-op')).token;
  });
  afterAll(async () => {
    await backend.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('queues its waiting jobs again, fails the in-flight ones, and puts back the caps, the recurring schedulers and the live publish jobs', async () => {
    expect((await http.put('/harness-config/codex', operator, { maxParallelism: 1 })).status).toBe(200);
    const { jobId: first } = (await http.post('/jobs', operator, launch)).body;
    const { jobId: second } = (await http.post('/jobs', operator, launch)).body;
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(first);
    // The cap holds the second behind the first.
    expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);
    expect((await http.get(`/jobs/${second}`)).body.state).toBe('pending');

    // A publish job is live in SQLite; its queue entry goes with the restart.
    const published = runRecord();
    await seedRun(backend, published);
    const { job: publish } = await backend.app.runs.publishJobs.claim(String(published.id));

    process.kill(redis.pid, 'SIGKILL');
    await redis.exited;
    redis = await startManagedRedis({ dir, persistent: false, port: redis.port });

    // The second is younger than the grace at the first pass, so the pass after it queues it.
    const claims: number[] = [];
    await until(async () => {
      const { status, body } = await http.post('/jobs/next', SERVICE);
      claims.push(status);
      return status === 200 && body.jobId === second;
    }, 10_000, 'the waiting job to be claimable again').catch((error: Error) => {
      throw new Error(`${error.message}; claims answered ${[...new Set(claims)].join(', ')}`);
    });
    expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);
    expect((await http.get(`/jobs/${first}`)).body).toMatchObject({ state: 'failed', detail: LOST_FROM_REDIS });
    expect((await http.get(`/jobs/${second}`)).body.state).toBe('dispatched');
    expect(Object.fromEntries(await backend.app.runJobs.queue.caps())).toEqual({ codex: 1 });

    expect(await backend.app.runs.publishQueue.getJob(publish.id), 'the live publish job').toBeDefined();
    for (const [name, scheduler] of [[BACKGROUND_QUEUES.staleJobs, 'stale-job-sweep'], [BACKGROUND_QUEUES.billedRates, 'billed-rate-refresh']] as const) {
      const queue = new Queue(name, { connection: bullConnection(redis.url), prefix: backend.config.redisPrefix });
      try {
        expect(await queue.getJobScheduler(scheduler), `${name} scheduler`).toBeDefined();
      } finally {
        await queue.close();
      }
    }
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import type { Job } from 'bullmq';
import { openStore } from '../../src/db/open-store.js';
import { probeProcessor } from '../../src/probes/probe-processor.js';
import { runnerGone, THIS_RUNNER } from '../../src/probes/probe-runner.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { scriptProbe } from '../fakes/fake-probe-replies.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const WORKER_SCRIPT = join(import.meta.dirname, '..', '..', 'dist', 'src', 'worker.js');
let router: FakeRouter;
let backend: TestBackend;

beforeAll(async () => {
  router = await startFakeRouter();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '2' });
  await backend.app.models.create({ slug: FAKE_SLUGS.allRates });
});
afterAll(async () => {
  await backend.close();
  await router.close();
});

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a restart mid-probe', () => {
  it('leaves alone at boot a probe another live process runs, and one still queued, even on a single box', async () => {
    router.scriptChat(scriptProbe(() => 'clean', { delayMs: 100 }));
    const { token } = await backend.auth.register('restarter');
    const ack = await backend.app.inject({ method: 'POST', url: `/models/${encodeURIComponent(FAKE_SLUGS.allRates)}/probes`, headers: bearer(token), payload: { samples: 1 } });
    expect(ack.statusCode).toBe(202);
    const id = ack.json().probe.id as string;
    await until(async () => (await backend.app.probes.store.get(id))!.itemCount, (count) => count >= 2, 'two items landed');
    // Stored, its job not yet taken by any worker.
    expect(await backend.app.probes.store.create({ id: 'queued-probe', modelSlug: 'acme/queued', openrouterSlug: 'acme/queued', provider: null, language: 'rust', samples: 1, maxTokens: 1000, callCount: 4, createdAt: new Date().toISOString() }, [])).toBe(true);

    // Another process on the same store and Redis boots while this one runs the probe.
    const opened = await openStore(backend.config);
    const next = await buildApp({ config: { ...backend.config, runWorkers: false, reapOrphanedJobs: true }, db: opened.sqlite, store: opened.store });
    try {
      expect((await next.inject(`/model-probes/${id}`)).json().probe).toMatchObject({ status: 'running', error: null });
      expect((await next.inject('/model-probes/queued-probe')).json().probe).toMatchObject({ status: 'running', error: null });
      // The live runner goes on to the probe's end.
      const done = await until(async () => (await backend.app.probes.store.get(id))!, (probe) => probe.status !== 'running', 'the probe finished', 20_000);
      expect(done).toMatchObject({ status: 'complete', itemCount: 44, verdict: 'ready' });
    } finally {
      await next.close();
      await opened.close();
    }
  }, 30_000);

  it('fails at boot the probe whose worker process was killed mid-run, before any route serves', async () => {
    const own = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '2', RUN_WORKERS: 'false' });
    const worker = spawn(process.execPath, [WORKER_SCRIPT], {
      env: {
        ...process.env, DATA_DIR: own.dataDir, REDIS_URL: own.config.redisUrl, REDIS_PREFIX: own.config.redisPrefix, LOG_LEVEL: 'silent',
        ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '2',
        ...(own.config.databaseUrl ? { DATABASE_URL: own.config.databaseUrl } : {}),
      },
      stdio: 'ignore',
      detached: true,
    });
    try {
      await own.app.models.create({ slug: FAKE_SLUGS.allRates });
      router.scriptChat(scriptProbe(() => 'clean', { delayMs: 100 }));
      const probe = await own.app.probes.trigger(FAKE_SLUGS.allRates, { samples: 8 });
      await until(async () => (await own.app.probes.store.get(probe.id))!.itemCount, (count) => count >= 2, 'the worker process ran the probe', 20_000);
      process.kill(-worker.pid!, 'SIGKILL');
      await once(worker, 'exit');

      // The API restarts on the same store (reaping off, the default): the killed process's probe is failed.
      await own.app.close();
      const opened = await openStore(own.config);
      const next = await buildApp({ config: own.config, db: opened.sqlite, store: opened.store });
      try {
        const detail = (await next.inject(`/model-probes/${probe.id}`)).json();
        expect(detail.probe).toMatchObject({ status: 'failed', error: 'The worker running this probe stopped before it finished.', verdict: null });
        expect(detail.probe.finishedAt).not.toBeNull();
      } finally {
        await next.close();
        await opened.close();
      }
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) process.kill(-worker.pid!, 'SIGKILL');
      await own.close();
    }
  }, 40_000);

  it('judges a runner gone only when its process, on this machine and pid namespace, is', async () => {
    expect(runnerGone(THIS_RUNNER)).toBe(false);
    const [scope, pid, started] = THIS_RUNNER.split('/');
    // The same pid started at another time is another process: the runner's is gone.
    expect(runnerGone(`${scope}/${pid}/${Number(started) + 1}`)).toBe(true);
    const exited = spawn(process.execPath, ['-e', '']);
    await once(exited, 'exit');
    expect(runnerGone(`${scope}/${exited.pid}/1`)).toBe(true);
    // Pids of another machine or container mean other processes: never judged from here.
    expect(runnerGone(`elsewhere|pid:[1]/${exited.pid}/1`)).toBe(false);
  });

  it('a shutdown does not wait for a running probe: it stops calling and fails the probe', async () => {
    const own = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '2' });
    await own.app.models.create({ slug: FAKE_SLUGS.allRates });
    router.scriptChat(scriptProbe(() => 'clean', { delayMs: 100 }));
    const probe = await own.app.probes.trigger(FAKE_SLUGS.allRates, { samples: 8 });
    await until(async () => (await own.app.probes.store.get(probe.id))!.itemCount, (count) => count >= 2, 'two items landed');
    const started = Date.now();
    await own.app.close();
    // 352 calls at 100 ms over 2 lanes would hold a waiting shutdown for about 18 s.
    expect(Date.now() - started).toBeLessThan(5000);
    const rows = await own.store.db.selectFrom('model_probes').select(['status', 'error']).where('id', '=', probe.id).executeTakeFirst();
    expect(rows).toEqual({ status: 'failed', error: 'The backend shut down while this probe ran.' });
    await own.close();
  });

  it('a probe whose job BullMQ gave up on (stalled past its bound) is failed, not left running', async () => {
    const { store } = backend.app.probes;
    expect(await store.create({ id: 'stalled-probe', modelSlug: 'acme/stalled', openrouterSlug: 'acme/stalled', provider: null, language: 'rust', samples: 1, maxTokens: 1000, callCount: 4, createdAt: new Date().toISOString() }, [])).toBe(true);
    const started = probeProcessor.start({ config: backend.config, store: backend.store, connection: bullConnection(backend.config.redisUrl), log: backend.app.log });
    try {
      await started.onFailed!({ data: { probeId: 'stalled-probe' } } as Job, new Error('job stalled more than allowable limit'));
      expect(await store.get('stalled-probe')).toMatchObject({ status: 'failed', error: "The probe's job failed: job stalled more than allowable limit" });
    } finally {
      await started.close?.();
    }
  });
});

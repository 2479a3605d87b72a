import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import type { Job } from 'bullmq';
import { openDatabase } from '../../src/db/open-database.js';
import { probeProcessor } from '../../src/probes/probe-processor.js';
import { bullConnection } from '../../src/redis/managed-redis.js';
import { scriptProbe } from '../fakes/fake-probe-replies.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let router: FakeRouter;
let backend: TestBackend;

beforeAll(async () => {
  router = await startFakeRouter();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '2' });
  backend.app.models.create({ slug: FAKE_SLUGS.allRates });
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
  it('fails the running probe before the new process serves, and the old runner stores nothing more', async () => {
    router.scriptChat(scriptProbe(() => 'clean', { delayMs: 100 }));
    const { token } = await backend.auth.register('restarter');
    const ack = await backend.app.inject({ method: 'POST', url: `/models/${encodeURIComponent(FAKE_SLUGS.allRates)}/probes`, headers: bearer(token), payload: { samples: 1 } });
    expect(ack.statusCode).toBe(202);
    const id = ack.json().probe.id as string;
    await until(() => backend.app.probes.store.get(id)!.itemCount, (count) => count >= 2, 'two items landed');

    // The next process on the same store and Redis, as after a crash: it boots while the probe is running.
    const db = openDatabase(join(backend.dataDir, 'backend.sqlite'));
    const next = await buildApp({ config: { ...backend.config, runWorkers: false }, db });
    try {
      const detail = (await next.inject(`/model-probes/${id}`)).json();
      expect(detail.probe).toMatchObject({ status: 'failed', error: 'The backend restarted while this probe ran.', verdict: null });
      expect(detail.probe.finishedAt).not.toBeNull();
      const frozen = detail.probe.itemCount as number;
      expect(frozen).toBeLessThan(44);

      // The old process's runner notices at its next landed call and stops.
      const job = await until(() => backend.app.probes.queue.getJob(id), (j) => j !== undefined && j.finishedOn !== undefined, 'the old job finished');
      expect(job?.returnvalue).toBe('failed');
      expect(backend.app.probes.store.get(id)).toMatchObject({ status: 'failed', itemCount: frozen });
      expect(router.requests.length).toBeLessThan(44);
    } finally {
      await next.close();
      db.close();
    }
  });

  it('a shutdown does not wait for a running probe: it stops calling and fails the probe', async () => {
    const own = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test', PROBE_CONCURRENCY: '2' });
    own.app.models.create({ slug: FAKE_SLUGS.allRates });
    router.scriptChat(scriptProbe(() => 'clean', { delayMs: 100 }));
    const probe = await own.app.probes.trigger(FAKE_SLUGS.allRates, { samples: 8 });
    await until(() => own.app.probes.store.get(probe.id)!.itemCount, (count) => count >= 2, 'two items landed');
    const started = Date.now();
    await own.app.close();
    // 352 calls at 100 ms over 2 lanes would hold a waiting shutdown for about 18 s.
    expect(Date.now() - started).toBeLessThan(5000);
    const rows = own.db.prepare('SELECT status, error FROM model_probes WHERE id = ?').get(probe.id);
    expect(rows).toEqual({ status: 'failed', error: 'The backend shut down while this probe ran.' });
    await own.close();
  });

  it('a probe whose job BullMQ gave up on (stalled past its bound) is failed, not left running', async () => {
    const { store } = backend.app.probes;
    expect(store.create({ id: 'stalled-probe', modelSlug: 'acme/stalled', openrouterSlug: 'acme/stalled', provider: null, language: 'rust', samples: 1, maxTokens: 1000, callCount: 4, createdAt: new Date().toISOString() }, [])).toBe(true);
    const started = probeProcessor.start({ config: backend.config, db: backend.db, connection: bullConnection(backend.config.redisUrl), log: backend.app.log });
    try {
      await started.onFailed!({ data: { probeId: 'stalled-probe' } } as Job, new Error('job stalled more than allowable limit'));
      expect(store.get('stalled-probe')).toMatchObject({ status: 'failed', error: "The probe's job failed: job stalled more than allowable limit" });
    } finally {
      await started.close?.();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { setHarnessCap } from '../../src/jobs/harness-caps.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
});
afterAll(() => backend.close());

describe('harness caps across the store and Redis', () => {
  it('leave both stores with the last write when two PUTs reach Redis in the other order', async () => {
    const { harnessConfig, runJobs } = backend.app;
    // Two PUTs, in two processes: each stores its cap, then applies it in Redis, the later one first.
    const first = await harnessConfig.set('codex', 1);
    const second = await harnessConfig.set('codex', 3);
    await runJobs.queue.setCap('codex', 3, second);
    await runJobs.queue.setCap('codex', 1, first);
    expect((await harnessConfig.caps()).get('codex')).toBe(3);
    expect((await runJobs.queue.caps()).get('codex')).toBe(3);

    await Promise.all([setHarnessCap(runJobs, harnessConfig, 'codex', 2), setHarnessCap(runJobs, harnessConfig, 'codex', null)]);
    expect((await harnessConfig.caps()).get('codex')).toBeUndefined();
    expect((await runJobs.queue.caps()).has('codex')).toBe(false);
  });

  it('apply again after the store was replaced under a Redis that kept newer revisions', async () => {
    await setHarnessCap(backend.app.runJobs, backend.app.harnessConfig, 'claude', 2);
    await backend.store.db.deleteFrom('harness_config').execute();
    await backend.app.close();
    // The service boots on the emptied store; its reconcile makes Redis forget the revisions the store lost.
    const app = await buildApp({ config: backend.config, db: backend.app.sqlite, store: backend.store });
    try {
      expect((await app.runJobs.queue.caps()).has('claude')).toBe(false);
      await setHarnessCap(app.runJobs, app.harnessConfig, 'claude', 4);
      expect((await app.runJobs.queue.caps()).get('claude')).toBe(4);
    } finally {
      await app.close();
    }
  });
});

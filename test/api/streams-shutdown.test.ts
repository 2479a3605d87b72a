import { expect, it } from 'vitest';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend } from '../helpers/test-backend.js';

it('ends a publish live stream whose publisher is dead when the server closes, and closes promptly', async () => {
  const backend = await startTestBackend();
  try {
    await seedRun(backend, runRecord({ id: 'dead-publisher' }));
    // A live publish job no worker will ever write to: its stream would follow forever.
    const { job } = await backend.app.runs.publishJobs.claim('dead-publisher');
    const base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
    const live = await fetch(`${base}/publish-jobs/${job.id}/live`);
    expect(live.status).toBe(200);
    const body = live.text();

    const began = Date.now();
    await backend.app.close();
    expect(Date.now() - began).toBeLessThan(5000);
    // The follower was ended, not left hanging: the body completes.
    await expect(body).resolves.toBeTypeOf('string');
  } finally {
    await backend.close().catch(() => {});
  }
});

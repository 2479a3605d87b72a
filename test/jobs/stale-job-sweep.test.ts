import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, seedCatalog, type SseClient } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let console_: SseClient;
let operator: string;

// A two-second lease (room on a loaded machine between a claim and its first report); the
// sweep, a BullMQ job scheduler run by the background workers, then runs every second.
beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, DISPATCH_LEASE_SECONDS: '2', RUNTIME_GRACE_SECONDS: '0' }, { pricedModels: [MODEL] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  const base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  console_ = await openConsole(base);
  await console_.streamId;
  operator = (await backend.auth.register('operator')).token;
});
afterAll(async () => {
  console_.close();
  await backend.close();
});

/** The console's completion alert for a job (the sweep announces it like any failed report). */
const completed = (jobId: string) =>
  console_.next((frame) => frame.event === 'notification' && JSON.parse(frame.data).jobId === jobId, 20_000);

describe('stale-job sweep', () => {
  it('fails a dispatched job nobody reported on within DISPATCH_LEASE_SECONDS and releases the job its cap held', async () => {
    expect((await http.put('/harness-config/codex', operator, { maxParallelism: 1 })).status).toBe(200);
    const first = (await http.post('/jobs', operator, launch)).body.jobId as string;
    const second = (await http.post('/jobs', operator, launch)).body.jobId as string;
    expect((await http.post('/jobs/next', SERVICE)).body.jobId).toBe(first);
    // The cap holds the second job behind the first, whose claim answer was "lost".
    expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);
    expect((await http.get(`/jobs/${second}`)).body.state).toBe('pending');

    const alert = JSON.parse((await completed(first)).data);
    expect(alert).toMatchObject({ kind: 'run-completed', outcome: 'failed', message: expect.stringContaining('DISPATCH_LEASE_SECONDS') });
    expect((await http.get(`/jobs/${first}`)).body).toMatchObject({ state: 'failed', detail: expect.stringContaining('within 2 s') });
    expect((await http.get(`/jobs/${second}`)).body.state).toBe('queued');
    const claimed = (await http.post('/jobs/next', SERVICE)).body;
    expect(claimed.jobId).toBe(second);
    expect((await http.post(`/jobs/${second}/status`, claimed.jobToken, { state: 'running' })).status).toBe(204);
    await http.put('/harness-config/codex', operator, { maxParallelism: null });
  });

  it('fails a running job past its maxRuntimeSeconds plus RUNTIME_GRACE_SECONDS', async () => {
    const jobId = (await http.post('/jobs', operator, { ...launch, maxRuntimeSeconds: 1 })).body.jobId as string;
    const claimed = (await http.post('/jobs/next', SERVICE)).body;
    expect(claimed.jobId).toBe(jobId);
    expect((await http.post(`/jobs/${jobId}/status`, claimed.jobToken, { state: 'running' })).status).toBe(204);

    const alert = JSON.parse((await completed(jobId)).data);
    expect(alert).toMatchObject({ outcome: 'failed', message: expect.stringContaining('maxRuntimeSeconds (1 s)') });
    expect((await http.get(`/jobs/${jobId}`)).body.state).toBe('failed');
    // The driver's late report finds the job finished.
    expect((await http.post(`/jobs/${jobId}/status`, claimed.jobToken, { state: 'succeeded', record: {} })).status).toBe(409);
  });
});

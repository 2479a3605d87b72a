import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let backend: TestBackend;
let base: string;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [MODEL] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await backend.auth.register('operator')).token;
});
afterAll(() => backend.close());

async function runningJob(): Promise<{ jobId: string; jobToken: string }> {
  expect((await http.post('/jobs', operator, launch)).status).toBe(202);
  const { body } = await http.post('/jobs/next', SERVICE);
  expect((await http.post(`/jobs/${body.jobId}/status`, body.jobToken, { state: 'running' })).status).toBe(204);
  return body;
}

const report = (job: { jobId: string; jobToken: string }, state: string, record: Record<string, unknown>) =>
  http.post(`/jobs/${job.jobId}/status`, job.jobToken, { state, record });

describe('a run belongs to the job that first stored it', () => {
  it('refuses another job\'s report naming a stored run with 409, keeping the run and leaving that job in flight', async () => {
    const [owner, intruder] = [await runningJob(), await runningJob()];
    expect((await report(owner, 'succeeded', runRecord({ id: 'run-owned', slug: 'carom', harness: 'codex', model: MODEL }))).status).toBe(204);

    const refused = await report(intruder, 'failed', runRecord({ id: 'run-owned', slug: 'carom', harness: 'codex', model: MODEL, state: 'hung' }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('run-owned');
    expect((await http.get('/runs/run-owned')).body.record.status.state).toBe('completed');
    expect((await http.get(`/jobs/${intruder.jobId}`)).body.state).toBe('running');

    // The owning job's retried report (a re-push) is still its own to make.
    expect((await report(owner, 'succeeded', runRecord({ id: 'run-owned', slug: 'carom', harness: 'codex', model: MODEL, cost: 2 }))).status).toBe(204);
  });

  it('restores an unreadable run only from the job that stored it', async () => {
    const [owner, intruder] = [await runningJob(), await runningJob()];
    const unreadable = { ...runRecord({ id: 'run-restored', slug: 'carom', harness: 'codex', model: MODEL }), recordFormat: 99 };
    expect((await report(owner, 'succeeded', unreadable)).status).toBe(204);
    expect((await http.get('/runs/run-restored')).status).toBe(404);

    const readable = runRecord({ id: 'run-restored', slug: 'carom', harness: 'codex', model: MODEL });
    const foreign = await report(intruder, 'succeeded', readable);
    expect(foreign.status).toBe(409);
    expect(foreign.body.error.message).toContain('run-restored');
    expect((await http.get('/runs/run-restored')).status).toBe(404);

    expect((await report(owner, 'succeeded', readable)).status).toBe(204);
    expect((await http.get('/runs/run-restored')).status).toBe(200);
  });

  it('applies the same rule to showcase uploads', async () => {
    const [owner, intruder] = [await runningJob(), await runningJob()];
    expect((await report(owner, 'failed', runRecord({ id: 'run-shown', slug: 'carom', harness: 'codex', model: MODEL, state: 'hung' }))).status).toBe(204);
    const upload = (job: { jobId: string; jobToken: string }) =>
      fetch(`${base}/runs/run-shown/showcase/shot.png`, { method: 'PUT', body: PNG, headers: { ...bearer(job.jobToken), 'x-svc-job-id': job.jobId } });
    const foreign = await upload(intruder);
    expect(foreign.status).toBe(409);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toContain('run-shown');
    expect((await upload(owner)).status).toBe(201);
  });
});

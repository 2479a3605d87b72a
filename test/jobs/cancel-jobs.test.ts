import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openConsole, seedCatalog, transitionsOf, type SseClient } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let operator: string;
let console_: SseClient;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  const base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await backend.auth.register('operator')).token;
  console_ = await openConsole(base);
  await http.put(`/notifications/${await console_.streamId}/topics`, undefined, { runs: true });
});
beforeEach(async () => {
  await http.post('/jobs/cancel-all', operator);
});
afterAll(async () => {
  console_.close();
  await backend.close();
});

const enqueue = async (count = 1) => {
  const { body } = await http.post('/jobs/batch', operator, { runs: Array.from({ length: count }, () => launch) });
  return (body.jobs as Array<{ jobId: string }>).map((job) => job.jobId);
};
const claim = async () => (await http.post('/jobs/next', SERVICE)).body as { jobId: string; jobToken: string };

describe('single cancel', () => {
  it('cancels a queued job and a running job, raising finished and no notification', async () => {
    const [queued, running] = await enqueue(2);
    const claimed = await claim();
    expect(claimed.jobId).toBe(queued);
    const second = await claim();
    await http.post(`/jobs/${second.jobId}/status`, second.jobToken, { state: 'running' });

    for (const id of [queued!, running!]) {
      const answer = await http.post(`/jobs/${id}/cancel`, operator);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ id, state: 'canceled', recordId: null, detail: 'Canceled by operator.' });
      await console_.next((frame) => frame.event === 'run' && JSON.parse(frame.data).runId === id && JSON.parse(frame.data).kind === 'finished');
    }
    expect(transitionsOf(console_, running!)).toEqual(['enqueued:queued', 'state-changed:dispatched', 'state-changed:running', 'finished:canceled']);
    const finished = JSON.parse(console_.frames.filter((frame) => frame.event === 'run').map((f) => f.data).find((d) => d.includes(running!) && d.includes('finished'))!);
    expect(finished.detail).toBe('Canceled by operator.');
    expect(console_.frames.filter((frame) => frame.event === 'notification' && [queued, running].includes(JSON.parse(frame.data).jobId))).toEqual([]);
    expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);
  });

  it('answers 409 on a terminal job, 404 on an unknown one, and 401 without a token', async () => {
    const [id] = await enqueue();
    await http.post(`/jobs/${id}/cancel`, operator);
    const again = await http.post(`/jobs/${id}/cancel`, operator);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await http.post('/jobs/00000000-0000-4000-8000-000000000000/cancel', operator)).status).toBe(404);
    expect((await http.post(`/jobs/${id}/cancel`)).status).toBe(401);
  });

  it('discards late reports on a canceled job and attaches only a canceled report with a record', async () => {
    const [id] = await enqueue();
    const { jobToken } = await claim();
    await http.post(`/jobs/${id}/status`, jobToken, { state: 'running' });
    await http.post(`/jobs/${id}/cancel`, operator);
    expect((await http.post(`/jobs/${id}/status`, jobToken, { state: 'running' })).status).toBe(204);
    expect((await http.post(`/jobs/${id}/status`, jobToken, { state: 'succeeded', record: { id: 'late' } })).status).toBe(204);
    expect((await http.post(`/jobs/${id}/status`, jobToken, { state: 'canceled' })).status).toBe(422);
    expect((await http.post(`/jobs/${id}/status`, jobToken, { state: 'canceled', record: { id: 'partial-1' } })).status).toBe(204);
    expect((await http.get(`/jobs/${id}`)).body).toEqual({ id, state: 'canceled', recordId: 'partial-1', detail: 'Canceled by operator.' });
    expect(await backend.store.db.selectFrom('runs').select('id').where('id', '=', 'late').execute()).toEqual([]);
  });
});

describe('cancel sweeps', () => {
  it('cancel-waiting takes queued and pending jobs and leaves active ones', async () => {
    await http.put('/harness-config/codex', operator, { maxParallelism: 1 });
    try {
      const ids = await enqueue(4);
      const first = await claim();
      expect(first.jobId).toBe(ids[0]);
      expect((await http.post('/jobs/next', SERVICE)).status).toBe(204);
      expect((await http.get(`/jobs/${ids[1]}`)).body.state).toBe('pending');
      const sweep = await http.post('/jobs/cancel-waiting', operator);
      expect(sweep.body).toEqual({ canceled: 3, includedWaiting: true, includedActive: false });
      expect((await http.get(`/jobs/${ids[0]}`)).body.state).toBe('dispatched');
      for (const id of ids.slice(1)) expect((await http.get(`/jobs/${id}`)).body.state).toBe('canceled');
    } finally {
      await http.put('/harness-config/codex', operator, { maxParallelism: null });
    }
  });

  it('cancel-active takes dispatched, starting and running jobs and leaves waiting ones', async () => {
    const ids = await enqueue(4);
    const a = await claim();
    const b = await claim();
    const c = await claim();
    await http.post(`/jobs/${b.jobId}/status`, b.jobToken, { state: 'starting' });
    await http.post(`/jobs/${c.jobId}/status`, c.jobToken, { state: 'running' });
    const sweep = await http.post('/jobs/cancel-active', operator);
    expect(sweep.body).toEqual({ canceled: 3, includedWaiting: false, includedActive: true });
    expect([a, b, c].map((job) => job.jobId)).toEqual(ids.slice(0, 3));
    expect((await http.get(`/jobs/${ids[3]}`)).body.state).toBe('queued');
    const active = (await http.get('/jobs/active')).body.jobs;
    expect(active.map((job: { runId: string }) => job.runId)).toEqual([ids[3]]);
  });

  it('cancel-all takes everything not finished, across many sweep steps', async () => {
    await enqueue(1000);
    await enqueue(300);
    await claim();
    const sweep = await http.post('/jobs/cancel-all', operator);
    expect(sweep.body).toEqual({ canceled: 1300, includedWaiting: true, includedActive: true });
    expect((await http.get('/jobs/active')).body.jobs).toEqual([]);
    expect(await backend.app.runJobs.queue.bull.getWaitingCount()).toBe(0);
  });

  it('needs a token', async () => {
    expect((await http.post('/jobs/cancel-waiting')).status).toBe(401);
  });
});

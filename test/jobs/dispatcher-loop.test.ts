import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, seedCatalog, transitionsOf, type SseClient } from '../helpers/jobs-fixtures.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
let backend: TestBackend;
let base: string;
let operator: string;
let console_: SseClient;

const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'claude', model: 'anthropic/claude-sonnet-4' };

async function post(path: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0', engines: ['simple-2d'] }]);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  operator = (await backend.auth.register('operator')).token;
  console_ = await openConsole(base);
  const response = await fetch(`${base}/notifications/${await console_.streamId}/topics`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ runs: true }),
  });
  expect(response.status).toBe(204);
});
afterAll(async () => {
  console_.close();
  await backend.close();
});

describe('a dispatcher loop over HTTP', () => {
  it('enqueues, claims, runs and succeeds with a record, and the console sees every transition', async () => {
    const ack = await post('/jobs', operator, launch);
    expect(ack.status).toBe(202);
    const { jobId } = ack.body;
    expect(ack.body).toEqual({ jobId, statusUrl: `/jobs/${jobId}`, liveUrl: `/jobs/${jobId}/live` });

    const claim = await post('/jobs/next', SERVICE);
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ jobId, request: launch, origin: null });
    const token: string = claim.body.jobToken;

    expect((await post(`/jobs/${jobId}/status`, token, { state: 'starting' })).status).toBe(204);
    expect((await post(`/jobs/${jobId}/status`, token, { state: 'running' })).status).toBe(204);
    const active = (await (await fetch(`${base}/jobs/active`)).json()) as { jobs: Array<{ startedAt: string }> };
    expect(active.jobs).toEqual([expect.objectContaining({ runId: jobId, state: 'running', harnessSlug: 'claude', engine: 'none', origin: null })]);
    expect(active.jobs[0]!.startedAt).toEqual(expect.any(String));

    expect((await post(`/jobs/${jobId}/events`, token, [{ type: 'log', line: 'hello' }, { type: 'progress', step: 2 }])).status).toBe(204);
    const record = { id: 'run-123', status: { state: 'completed' }, subject: { testCaseSlug: 'carom' } };
    expect((await post(`/jobs/${jobId}/status`, token, { state: 'succeeded', record })).status).toBe(204);

    const status: unknown = await (await fetch(`${base}/jobs/${jobId}`)).json();
    expect(status).toEqual({ id: jobId, state: 'succeeded', recordId: 'run-123', detail: null });
    const stored = await backend.store.db.selectFrom('runs').select(['job_id as jobId', 'record', 'events']).where('id', '=', 'run-123').executeTakeFirstOrThrow();
    expect(stored.jobId).toBe(jobId);
    expect(JSON.parse(stored.record)).toEqual(record);
    expect(JSON.parse(stored.events)).toEqual([{ type: 'log', line: 'hello' }, { type: 'progress', step: 2 }]);

    const finished = await console_.next((frame) => frame.event === 'run' && JSON.parse(frame.data).kind === 'finished' && JSON.parse(frame.data).runId === jobId);
    expect(JSON.parse(finished.data)).toMatchObject({ state: 'succeeded', recordId: 'run-123', testCaseSlug: 'carom', modelId: launch.model });
    const notification = await console_.next((frame) => frame.event === 'notification' && JSON.parse(frame.data).jobId === jobId);
    expect(JSON.parse(notification.data)).toMatchObject({ kind: 'run-completed', outcome: 'completed', recordId: 'run-123', harnessSlug: 'claude' });
    expect(transitionsOf(console_, jobId)).toEqual([
      'enqueued:queued', 'state-changed:dispatched', 'state-changed:starting', 'state-changed:running', 'finished:succeeded',
    ]);

    const job = await backend.app.runJobs.queue.bull.getJob(jobId);
    expect(await job!.getState()).toBe('completed');
    expect(((await fetch(`${base}/jobs/active`).then((r) => r.json())) as { jobs: unknown[] }).jobs).toEqual([]);
  });

  it('answers 204 at once when nothing is claimable', async () => {
    const started = Date.now();
    expect((await post('/jobs/next', SERVICE)).status).toBe(204);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('guards claims with the service token and reports with the per-job token', async () => {
    expect((await post('/jobs/next', operator)).status).toBe(401);
    const { jobId } = (await post('/jobs', operator, launch)).body;
    const { jobToken } = (await post('/jobs/next', SERVICE)).body;
    expect((await post(`/jobs/${jobId}/status`, SERVICE, { state: 'running' })).status).toBe(401);
    expect((await post(`/jobs/${jobId}/status`, operator, { state: 'running' })).status).toBe(401);
    expect((await post('/jobs/00000000-0000-4000-8000-000000000000/status', jobToken, { state: 'running' })).status).toBe(404);
    const other = (await post('/jobs', operator, launch)).body.jobId;
    expect((await post(`/jobs/${other}/status`, jobToken, { state: 'running' })).status).toBe(401);
    expect((await post(`/jobs/${jobId}/status`, jobToken, { state: 'running' })).status).toBe(204);
    await post('/jobs/cancel-all', operator);
  });

  it('applies the transition rules to driver reports', async () => {
    const { jobId } = (await post('/jobs', operator, launch)).body;
    const { jobToken } = (await post('/jobs/next', SERVICE)).body;
    const report = (body: object) => post(`/jobs/${jobId}/status`, jobToken, body);
    expect((await report({ state: 'running' })).status).toBe(204);
    expect((await report({ state: 'running' })).status).toBe(204);
    const backward = await report({ state: 'starting' });
    expect(backward.status).toBe(409);
    expect(backward.body.error.message).toBe(`Job ${jobId} is running; it cannot go back to starting.`);
    expect((await report({ state: 'succeeded' })).status).toBe(422);
    expect((await report({ state: 'canceled', record: { id: 'x' } })).status).toBe(409);
    expect((await report({ state: 'paused' })).status).toBe(400);
    expect((await report({ state: 'failed', detail: 'container image missing' })).status).toBe(204);
    expect((await report({ state: 'running' })).status).toBe(409);
    const notification = await console_.next((frame) => frame.event === 'notification' && JSON.parse(frame.data).jobId === jobId);
    expect(JSON.parse(notification.data)).toMatchObject({ outcome: 'failed', recordId: jobId, message: 'container image missing' });
    const status: unknown = await (await fetch(`${base}/jobs/${jobId}`)).json();
    expect(status).toEqual({ id: jobId, state: 'failed', recordId: null, detail: 'container image missing' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/find-chromium.js';
import puppeteer, { type Browser } from 'puppeteer-core';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const PASSWORD = 'correct horse battery';

let backend: TestBackend;
let url: string;
let token: string;
let basic: string;
const jobs: Record<'waiting' | 'active' | 'completed' | 'failed', string> = { waiting: '', active: '', completed: '', failed: '' };

beforeAll(async () => {
  backend = await startTestBackend({ QUEUE_DASHBOARD: 'true', SERVICE_TOKEN: 'dispatch-secret', AUTH_RELAY_TOKEN: 'relay-secret' }, { pricedModels: ['acme/coder'] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'harbor', version: 'v1.0.0' }]);
  url = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  token = (await backend.auth.register('queue-watcher')).token;
  basic = `Basic ${Buffer.from(`queue-watcher:${PASSWORD}`).toString('base64')}`;

  // One job in each state the board shows: finished ones first, so the waiting one is claimed last.
  const http = jobsHttp(url);
  const launch = async () => (await http.post('/jobs', token, { testCase: 'harbor', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'acme/coder' })).body.jobId as string;
  const claim = async () => (await http.post('/jobs/next', 'dispatch-secret')).body as { jobId: string; jobToken: string };
  jobs.completed = await launch();
  const done = await claim();
  const record = { id: `run-${done.jobId}`, startedAt: '2026-11-23T10:00:00Z', finishedAt: '2026-11-23T10:05:00Z', subject: { testCaseSlug: 'harbor', testCaseVersion: 'v1.0.0', variant: 'base', harnessSlug: 'claude', modelId: 'acme/coder', testType: 'end-to-end' }, status: { state: 'completed' } };
  expect((await http.post(`/jobs/${done.jobId}/status`, done.jobToken, { state: 'succeeded', record })).status).toBe(204);
  jobs.failed = await launch();
  expect((await http.post(`/jobs/${jobs.failed}/cancel`, token)).status).toBe(200);
  jobs.active = await launch();
  expect((await claim()).jobId).toBe(jobs.active);
  jobs.waiting = await launch();
}, 60_000);

afterAll(async () => {
  await backend?.close();
});

async function board(path: string, init: RequestInit = {}) {
  return fetch(`${url}/admin/queues${path}`, { ...init, headers: { authorization: basic, ...(init.headers ?? {}) } });
}

describe('the queue dashboard (QUEUE_DASHBOARD=true)', () => {
  it('asks for HTTP Basic credentials and checks them with the auth service', async () => {
    const anonymous = await fetch(`${url}/admin/queues`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const wrong = await fetch(`${url}/admin/queues`, { headers: { authorization: `Basic ${Buffer.from('queue-watcher:nope').toString('base64')}` } });
    expect(wrong.status).toBe(401);
    // A bearer token is no way in: navigation cannot send one, and the board never asks for it.
    expect((await fetch(`${url}/admin/queues`, { headers: bearer(token) })).status).toBe(401);
    expect((await board('')).status).toBe(200);
  });

  it('throttles Basic logins by the browser\'s address: a remote guesser gets 429, nobody else is locked out', async () => {
    await backend.auth.register('guessed-at');
    const from = (remoteAddress: string, password: string, headers: Record<string, string> = {}) =>
      backend.app.inject({ method: 'GET', url: '/admin/queues', remoteAddress, headers: { ...headers, authorization: `Basic ${Buffer.from(`guessed-at:${password}`).toString('base64')}` } });
    // The auth service's default budget: 10 failures per username and address in 15 minutes.
    for (let attempt = 0; attempt < 10; attempt++) expect((await from('203.0.113.5', 'a wrong guess')).statusCode).toBe(401);
    const refused = await from('203.0.113.5', PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toEqual({ error: { code: 'too_many_requests', message: expect.stringContaining('Too many failed logins') } });
    // Naming another address is no way around it.
    const spoofed = { 'x-forwarded-for': '203.0.113.77', 'x-auth-client-address': '203.0.113.78', 'x-auth-relay-token': 'relay-secret' };
    expect((await from('203.0.113.5', PASSWORD, spoofed)).statusCode).toBe(429);
    expect((await from('203.0.113.6', PASSWORD)).statusCode).toBe(200);
    // Nor is the API's own host, from which the dashboard asks the auth service.
    const direct = await fetch(`${backend.auth.url}/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'guessed-at', password: PASSWORD }),
    });
    expect(direct.status).toBe(200);
  });

  it('shows each run job in the state the queue has it in', async () => {
    for (const [status, id] of Object.entries(jobs)) {
      const listed = (await (await board(`/api/queues?activeQueue=runs&status=${status}&page=1`)).json()) as { queues: Array<{ name: string; jobs: Array<{ id: string }> }> };
      const runs = listed.queues.find((queue) => queue.name === 'runs')!;
      expect(runs.jobs.map((job) => job.id), status).toContain(id);
    }
  });

  it('counts and lists a job canceled deep in the wait list once, among the failed', async () => {
    const http = jobsHttp(url);
    const canceled = (await http.post('/jobs', token, { testCase: 'harbor', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'acme/coder' })).body.jobId as string;
    expect((await http.post(`/jobs/${canceled}/cancel`, token)).status).toBe(200);
    // Its entry as a cancel leaves one more than 1,000 entries from either end of the list.
    const { keys } = backend.app.runJobs.queue;
    await backend.app.jobsRedis.multi().rpush(keys.wait, canceled).sadd(keys.leftBehind, canceled).exec();
    const runsAt = async (status: string) => {
      const listed = (await (await board(`/api/queues?activeQueue=runs&status=${status}&page=1`)).json()) as { queues: Array<{ name: string; counts: Record<string, number>; jobs: Array<{ id: string }> }> };
      return listed.queues.find((queue) => queue.name === 'runs')!;
    };
    const waiting = await runsAt('waiting');
    expect(waiting.counts.waiting).toBe(1);
    expect(waiting.jobs.map((job) => job.id)).toEqual([jobs.waiting]);
    expect((await runsAt('failed')).jobs.map((job) => job.id)).toContain(canceled);
    expect((await runsAt('latest')).jobs.filter((job) => job.id === canceled)).toHaveLength(1);
  });

  it('refuses every action on the run queue, which only our own scripts move', async () => {
    const actions: Array<[string, string, object?]> = [
      ['PUT', `/api/queues/runs/${jobs.failed}/retry`],
      ['PUT', '/api/queues/runs/retry/failed'],
      ['PUT', '/api/queues/runs/clean/completed'],
      ['PUT', `/api/queues/runs/${jobs.waiting}/clean`],
      ['PUT', `/api/queues/runs/${jobs.waiting}/promote`],
      ['PUT', '/api/queues/runs/empty'],
      ['PUT', '/api/queues/runs/obliterate'],
      ['PUT', '/api/queues/runs/pause'],
      ['POST', '/api/queues/runs/add', { name: 'sneaky', data: {} }],
    ];
    for (const [method, path, body] of actions) {
      const response = await board(path, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
      expect(response.status, `${method} ${path}`).toBe(405);
    }
    // Pausing every queue skips the read-only ones.
    expect((await board('/api/queues/pause', { method: 'PUT' })).status).toBe(200);
    const listed = (await (await board('/api/queues')).json()) as { queues: Array<{ name: string; isPaused: boolean }> };
    expect(listed.queues.find((queue) => queue.name === 'runs')!.isPaused).toBe(false);
    await board('/api/queues/resume', { method: 'PUT' });
    const state = await jobsHttp(url).get(`/jobs/${jobs.waiting}`);
    expect(state.body.state).toBe('queued');
    expect((await jobsHttp(url).get(`/jobs/${jobs.failed}`)).body.state).toBe('canceled');
  });

  it('takes no job data: adding a job or editing one is refused on every queue, and the ingest queue is read-only', async () => {
    const queues = backend.app.deploymentQueues.queues;
    const ingestJobs = async () => Object.values(await queues.get('ingest')!.getJobCounts()).reduce((sum, count) => sum + count, 0);
    const before = await ingestJobs();
    const json = { 'content-type': 'application/json' };
    const refused: Array<[string, string, object?]> = [
      ['POST', '/api/queues/ingest/add', { name: 'scan', data: { force: 'yes', testCases: [42] } }],
      ['POST', '/api/queues/snapshot/add', { name: 'refresh', data: { anything: true } }],
      ['POST', '/api/queues/snapshot/%61dd', { name: 'refresh', data: { anything: true } }],
      ['PATCH', '/api/queues/snapshot/some-job/update-data', { data: { anything: true } }],
      ['PATCH', '/api/queues/billed-rates/some-job/update-data', { data: { anything: true } }],
      ['PUT', '/api/queues/ingest/retry/failed'],
      ['PUT', '/api/queues/ingest/clean/completed'],
    ];
    for (const [method, path, body] of refused) {
      const response = await board(path, { method, ...(body ? { body: JSON.stringify(body), headers: json } : {}) });
      expect(response.status, `${method} ${path}`).toBe(405);
      if (body) expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    }
    expect(await ingestJobs()).toBe(before);
    // Re-running a snapshot refresh is still the board's to do.
    expect((await board('/api/queues/snapshot/retry/failed', { method: 'PUT' })).status).toBe(200);
  });

  it('in a real browser: logs in and finds a queued job on the runs page', async () => {
    let browser: Browser | undefined;
    try {
      // A plain headless Chromium, as an operator's browser would be (the render pool's
      // browsers resolve no host names on purpose).
      browser = await puppeteer.launch({
        executablePath: findChromium(),
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      });
      const page = await browser.newPage();
      await page.authenticate({ username: 'queue-watcher', password: PASSWORD });
      const response = await page.goto(`${url}/admin/queues/queue/runs?status=waiting`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(jobs.waiting)})`, { timeout: 20_000 });
      expect(await page.title()).toMatch(/eval-backend queues/);
    } finally {
      await browser?.close();
    }
  }, 60_000);
});

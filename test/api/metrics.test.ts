import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcessMetrics } from '../../src/metrics/serve-process-metrics.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const EXAMPLES = resolve(__dirname, '../../examples/catalog');

let backend: TestBackend;
let token: string;

async function scrape(): Promise<string> {
  const response = await backend.app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

/** The value of one sample line `name{labels} value`, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLES, SERVICE_TOKEN: 'dispatch-secret' }, { pricedModels: ['acme/coder'] });
  token = (await backend.auth.register('metrics-reader')).token;
}, 60_000);

afterAll(async () => {
  await backend?.close();
});

describe('GET /metrics', () => {
  it('counts ingest scans and renders, times requests by route pattern, and reads the queues at scrape time', async () => {
    const ingest = await backend.app.inject({ method: 'POST', url: '/ingest' });
    expect(ingest.statusCode).toBe(200);
    const rendered = ingest.json<{ testCaseVersions: Array<{ renderedReferences: number }> }>().testCaseVersions.reduce((n, v) => n + v.renderedReferences, 0);
    expect(rendered).toBeGreaterThan(0);

    await backend.app.inject({ method: 'GET', url: '/test-cases/beacon/versions/v1.1.0' });
    await backend.app.inject({ method: 'GET', url: '/test-cases/tugline/versions/v1.0.0' });
    await backend.app.inject({ method: 'PUT', url: '/harness-config/codex', headers: bearer(token), payload: { maxParallelism: 1 } });
    const launch = { testCase: 'beacon', version: 'v1.1.0', variant: 'base', model: 'acme/coder' };
    for (const harness of ['claude', 'codex', 'codex']) {
      expect((await backend.app.inject({ method: 'POST', url: '/jobs', headers: bearer(token), payload: { ...launch, harness } })).statusCode).toBe(202);
    }
    // Claims take claude's job and the first codex one; the codex cap of 1 then holds the second.
    const claims = [];
    for (let i = 0; i < 3; i++) claims.push((await backend.app.inject({ method: 'POST', url: '/jobs/next', headers: bearer('dispatch-secret') })).statusCode);
    expect(claims).toEqual([200, 200, 204]);

    const text = await scrape();
    // Ingest scans are the ingest queue's background jobs.
    expect(sample(text, 'evb_background_jobs_total', { queue: 'ingest', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'evb_background_job_duration_seconds_count', { queue: 'ingest' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'evb_renders_total', { outcome: 'rendered' })).toBeGreaterThanOrEqual(rendered);
    expect(sample(text, 'evb_render_duration_seconds_count')).toBeGreaterThanOrEqual(rendered);
    expect(text).toMatch(/^# TYPE evb_browser_restarts_total counter$/m);
    // One series per route pattern, whatever the ids in the URL.
    expect(sample(text, 'evb_http_request_duration_seconds_count', { route: '/test-cases/:slug/versions/:version', status: '200', method: 'GET' })).toBe(2);
    // Claims: 200 for a job, 204 for none.
    expect(sample(text, 'evb_http_request_duration_seconds_count', { route: '/jobs/next', status: '200', method: 'POST' })).toBe(2);
    expect(sample(text, 'evb_http_request_duration_seconds_count', { route: '/jobs/next', status: '204', method: 'POST' })).toBe(1);
    expect(sample(text, 'evb_jobs', { state: 'dispatched', harness: 'codex' })).toBe(1);
    expect(sample(text, 'evb_jobs', { state: 'dispatched', harness: 'claude' })).toBe(1);
    expect(sample(text, 'evb_jobs', { state: 'pending', harness: 'codex' })).toBe(1);
    expect(sample(text, 'evb_jobs_held')).toBe(1);
    expect(sample(text, 'evb_queue_counts_up')).toBe(1);
    expect(sample(text, 'evb_queue_jobs', { queue: 'ingest', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'evb_queue_jobs', { queue: 'runs', state: 'active' })).toBe(2);
    expect(sample(text, 'evb_console_streams_open')).toBe(0);
    expect(text).toMatch(/^# TYPE evb_redis_reconnects_total counter$/m);
    expect(sample(text, 'evb_process_resident_memory_bytes')).toBeGreaterThan(0);
  }, 120_000);
});

describe('a worker process\'s metrics', () => {
  it('are served on their own port, and nothing else is', async () => {
    const server = await serveProcessMetrics('127.0.0.1', 0);
    try {
      const { port } = server.address() as AddressInfo;
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^# TYPE evb_background_jobs_total counter$/m);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    } finally {
      server.close();
    }
  });
});

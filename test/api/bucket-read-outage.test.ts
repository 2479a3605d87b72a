import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { ingestCatalog } from '../helpers/runs-test-helpers.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// A bucket that cannot be read is an outage, never "not ingested": with this machine's
// copy of a version gone (a cold cache after a re-ingest, a new machine) and the bucket
// down, launches, top-ups and the catalog answer 503, and answer as before once it is back.
const launch = { testCase: 'skiff-race', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
/** Well within a client's patience (ms). */
const FAST = 8000;

let s3: TestS3Server;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let reviewer: string;
let planId: string;
let base: string;

beforeAll(async () => {
  s3 = await startTestS3();
  backend = await startTestBackend({ ...s3.env('read-outage'), CATALOG_DIR: EXAMPLE_CATALOG }, { pricedModels: [launch.model] });
  await ingestCatalog(backend, ['skiff-race']);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  reviewer = (await backend.auth.register('reviewer')).token;
  const plan = await http.post('/coverage-plans', reviewer, {
    name: 'Outage', runsPerCell: 1,
    combos: [{ harness: launch.harness, model: launch.model }],
    cases: [{ slug: launch.testCase, version: launch.version, variant: launch.variant }],
    schedule: { autoTopUp: false, bufferTarget: { kind: 'bounded', runs: 4 } },
  });
  expect(plan.status).toBe(201);
  planId = plan.body.id;
}, 60_000);
afterAll(async () => {
  await backend?.close();
  await s3?.close();
});

const dropLocalCopies = () => rmSync(join(backend.dataDir, 'definitions'), { recursive: true, force: true });

describe('a bucket read failure', () => {
  it('answers 503 blob_store_unavailable with Retry-After on launch, catalog, resolution and top-up, and marks no cell unlaunchable', async () => {
    const before = await http.get('/test-cases');
    expect(before.body.testCases.map((entry: { slug: string }) => entry.slug)).toContain('skiff-race');
    dropLocalCopies();
    await s3.stop();
    try {
      for (const [name, request] of [
        ['POST /jobs', () => http.post('/jobs', reviewer, launch)],
        ['GET /test-cases', () => http.get('/test-cases')],
        ['GET version', () => http.get('/test-cases/skiff-race/versions/v1.1.0')],
        ['top-up', () => http.post(`/coverage-plans/${planId}/topup`, reviewer)],
        ['matrix', () => http.get(`/coverage-plans/${planId}/coverage`, reviewer)],
      ] as const) {
        const began = Date.now();
        const response = await request();
        expect(Date.now() - began, name).toBeLessThan(FAST);
        expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(503);
        expect(response.body.error.code, name).toBe('blob_store_unavailable');
      }
      const raw = await fetch(`${base}/test-cases`);
      expect(raw.headers.get('retry-after')).toBe('5');
    } finally {
      await s3.start();
    }
    const topUp = await http.post(`/coverage-plans/${planId}/topup`, reviewer);
    expect(topUp.status).toBe(200);
    expect(topUp.body.unlaunchable).toEqual([]);
    expect(topUp.body.enqueued).toBe(1);
    expect((await http.post('/jobs', reviewer, launch)).status).toBe(202);
    expect((await http.get('/test-cases')).body.testCases.map((entry: { slug: string }) => entry.slug)).toContain('skiff-race');
  }, 60_000);
});

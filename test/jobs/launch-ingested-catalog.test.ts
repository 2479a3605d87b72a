import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// Launch rules read what ingest really stored, so this file seeds nothing by hand: it
// ingests two cases of the example catalog and launches against them.
const SERVICE = 'svc-launch-ingested';
const MODEL = 'openai/gpt-5';
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'catalog');
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let alice: string;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLES, SERVICE_TOKEN: SERVICE }, { pricedModels: [MODEL] });
  const scan = await backend.app.inject({ method: 'POST', url: '/ingest', payload: { testCases: ['tugline', 'low-tide'] } });
  expect(scan.json()).toMatchObject({ total: 2, ingested: 2 });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  alice = (await backend.auth.register('alice')).token;
});
afterAll(() => backend.close());

const claim = () => http.post('/jobs/next', SERVICE);

describe('launching ingested versions', () => {
  it('accepts the engines and variants a version declares and refuses the rest, naming what it declares', async () => {
    const tugline = { testCase: 'tugline', version: 'v1.0.0', variant: 'base', harness: 'codex', model: MODEL };
    expect((await http.post('/jobs', alice, { ...tugline, engine: 'simple-2d' })).status).toBe(202);
    expect((await http.post('/jobs', alice, { ...tugline, engine: 'decoupled-2d' })).status).toBe(202);
    const undeclared = await http.post('/jobs', alice, { ...tugline, engine: 'decoupled-3d' });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.error.message).toBe('Test case tugline v1.0.0 does not declare engine "decoupled-3d" (it declares none, simple-2d, decoupled-2d).');
    const variant = await http.post('/jobs', alice, { ...tugline, variant: 'fog' });
    expect(variant.status).toBe(400);
    expect(variant.body.error.message).toBe('Test case tugline v1.0.0 has no variant "fog".');
    await http.post('/jobs/cancel-all', alice);
  });

  it('holds a second run of the same model on an ingested game jam while the first is running', async () => {
    const jam = { testCase: 'low-tide', version: 'v1.0.0', variant: 'base', harness: 'claude', model: MODEL };
    const first = (await http.post('/jobs', alice, jam)).body.jobId;
    const second = (await http.post('/jobs', alice, { ...jam, harness: 'codex' })).body.jobId;
    expect((await claim()).body.jobId).toBe(first);
    expect((await claim()).status).toBe(204);
    expect((await http.get(`/jobs/${second}`)).body.state).toBe('pending');
    await http.post('/jobs/cancel-all', alice);
  });
});

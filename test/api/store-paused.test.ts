import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.js';
import { SECOND } from '../../src/time.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { pausePostgres } from '../helpers/pause-postgres.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

// A PostgreSQL that hangs instead of refusing (paused: its sockets stay open and silent). The
// backend's store is a database on a cluster of this file's own, in both halves of the suite,
// since the test pauses it; the auth service stays on the run's engine, which keeps answering.
const SERVICE = 'dispatch-secret';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
/** How long a request may take while the store is paused: its statement deadline and a margin. */
const DEADLINE_MS = 8 * SECOND;

const folder = mkdtempSync(join(tmpdir(), 'evb-pg-pause-'));
let server: ManagedPostgres;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let resume: (() => void) | null = null;

beforeAll(async () => {
  server = await startManagedPostgres({ dir: folder });
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, DATABASE_URL: await server.createDatabase('paused') }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
}, 120 * SECOND);
afterAll(async () => {
  resume?.();
  await backend?.close();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function timed<T>(call: () => Promise<T>): Promise<T & { ms: number }> {
  const began = Date.now();
  const answer = await call();
  return { ...answer, ms: Date.now() - began };
}

describe('a paused PostgreSQL', () => {
  it('answers 503 store_unavailable with Retry-After within a few seconds on reads, takes driver reports, and copies them and answers 200 again once it resumes', async () => {
    const operator = (await backend.auth.register('operator')).token;
    const enqueued = await http.post('/jobs/batch', operator, { runs: [launch] });
    expect(enqueued.status).toBe(200);
    const claim = await http.post('/jobs/next', SERVICE);
    expect(claim.status).toBe(200);
    const { jobId, jobToken } = claim.body as { jobId: string; jobToken: string };
    const reads = {
      job: () => http.get(`/jobs/${jobId}`),
      runs: () => http.get('/runs'),
      testCases: () => http.get('/test-cases'),
    };
    // The driver's first report: Redis decides it, so it is taken (204) while the store hangs,
    // and its copy waits in memory for the store (src/jobs/job-state-copier.ts).
    const report = () => http.post(`/jobs/${jobId}/status`, jobToken, { state: 'running' });
    for (const [name, call] of Object.entries(reads)) expect((await call()).status, name).toBe(200);

    resume = pausePostgres(server.pid);
    // The reads twice: once on connections the pool kept (their sessions go silent), once after.
    const reported = await timed(report);
    expect(reported.status).toBe(204);
    expect(reported.ms).toBeLessThan(DEADLINE_MS);
    for (let round = 0; round < 2; round += 1) {
      const calls = reads;
      const answers = await Promise.all(Object.entries(calls).map(async ([name, call]) => ({ name, ...(await timed(call)) })));
      for (const { name, status, body, ms } of answers) {
        expect({ name, status, code: body?.error?.code }).toEqual({ name, status: 503, code: 'store_unavailable' });
        expect(ms, name).toBeLessThan(DEADLINE_MS);
      }
    }
    const headers = await fetch(`${backend.app.listeningOrigin}/runs`);
    expect(headers.status).toBe(503);
    expect(Number(headers.headers.get('retry-after'))).toBeGreaterThan(0);
    await headers.body?.cancel();

    resume();
    resume = null;
    await until(async () => (await reads.runs()).status === 200, 15 * SECOND, 'the store to answer again');
    for (const [name, call] of Object.entries(reads)) expect((await call()).status, name).toBe(200);
    // The copy lands once the store answers again.
    await until(async () => (await reads.job()).body.state === 'running', 15 * SECOND, 'the report copied');
  }, 90 * SECOND);
});

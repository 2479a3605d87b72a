/**
 * Preview events a driver relays (`asset_preview`) reach the live stream but are not stored
 * with the run's events, as the original relays previews and never persists them
 * (TheClockwyrks/TheTestCabinet, crates/backend/src/api/jobs.rs: `ingest_preview`, and
 * `persist_record`, which stores the relayed events only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { openLive } from '../helpers/ndjson-client.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const MODEL = 'openai/gpt-5';

let backend: TestBackend;
let base: string;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE }, { pricedModels: [MODEL] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await backend.auth.register('previewer')).token;
});
afterAll(async () => {
  await backend?.close();
});

describe('relayed asset previews', () => {
  it('are followed live and left out of the recorded events', async () => {
    const { jobId } = (await http.post('/jobs', operator, { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL })).body;
    const { jobToken } = (await http.post('/jobs/next', SERVICE)).body;
    await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'running' });
    const relayed = [
      { type: 'tool_call', name: 'write_file' },
      { type: 'asset_preview', path: 'sprites/ship.png', url: 'https://artifacts.example/preview/ship.png' },
      { type: 'message', text: 'done' },
    ];
    expect((await http.post(`/jobs/${jobId}/events`, jobToken, relayed)).status).toBe(204);

    const live = await openLive(`${base}/jobs/${jobId}/live`);
    await live.until(() => live.lines.length >= 3);
    expect(live.lines.slice(0, 3).map((line) => JSON.parse(line))).toEqual(relayed);

    const record = runRecord({ slug: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: MODEL });
    expect((await http.post(`/jobs/${jobId}/status`, jobToken, { state: 'succeeded', record })).status).toBe(204);
    await live.done;
    const events = await http.get(`/runs/${String(record.id)}/events`);
    expect(events.status).toBe(200);
    expect(events.body).toEqual([relayed[0], relayed[2]]);
  });
});

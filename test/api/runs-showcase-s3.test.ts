import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, publishAndWait } from '../helpers/runs-test-helpers.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// Showcase media and the snapshot on the `s3` blob driver: two API processes with their own
// DATA_DIR share one bucket prefix, as two machines of a deployment do.
const SERVICE = 'dispatch-secret';
const launch = { testCase: 'skiff-race', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
/** An unreachable bucket must be answered well within a client's patience (ms). */
const FAST = 8000;

let s3: TestS3Server;
let first: TestBackend;
let second: TestBackend;
let base: string;
let otherBase: string;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  s3 = await startTestS3();
  const env = { ...s3.env('deployment'), CATALOG_DIR: EXAMPLE_CATALOG, SERVICE_TOKEN: SERVICE, SNAPSHOT_URL: 'http://127.0.0.1/snapshot/', SHOWCASE_UPLOAD_MAX_MIB: '0.001' };
  first = await startTestBackend(env, { pricedModels: [launch.model] });
  second = await startTestBackend(env);
  await ingestCatalog(first, ['skiff-race']);
  base = await first.app.listen({ host: '127.0.0.1', port: 0 });
  otherBase = await second.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await first.auth.register('operator')).token;
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await s3?.close();
});

async function runningJob(): Promise<{ jobId: string; jobToken: string }> {
  await http.post('/jobs', operator, launch);
  const { body } = await http.post('/jobs/next', SERVICE);
  await http.post(`/jobs/${body.jobId}/status`, body.jobToken, { state: 'running' });
  return body;
}
const as = (job: { jobId: string; jobToken: string }) => ({ ...bearer(job.jobToken), 'x-svc-job-id': job.jobId });
const put = (runId: string, file: string, body: Buffer, headers: Record<string, string>) =>
  fetch(`${base}/runs/${runId}/showcase/${file}`, { method: 'PUT', body, headers });
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe('showcase media in a bucket', () => {
  it('is uploaded through one API process and served by another, and a published run\'s media reaches the snapshot both serve', async () => {
    const job = await runningJob();
    expect((await put('run-s3', 'title.png', PNG, as(job))).status).toBe(201);
    const served = await fetch(`${otherBase}/runs/run-s3/showcase/title.png`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(await bytesOf(served)).toEqual(PNG);

    const answer = await http.post(`/jobs/${job.jobId}/status`, job.jobToken, { state: 'failed', record: runRecord({ id: 'run-s3', state: 'hung' }) });
    expect(answer.status).toBe(204);
    await publishAndWait(first, operator, 'run-s3');
    expect((await first.app.inject({ method: 'POST', url: '/snapshot/refresh' })).json()).toMatchObject({ refreshed: true });
    for (const origin of [base, otherBase]) {
      const detail = (await (await fetch(`${origin}/snapshot/runs/run-s3.json`)).json()) as { showcase: unknown };
      expect(detail.showcase).toEqual([{ file: 'title.png', kind: 'image', key: 'media/run-s3/showcase/title.png' }]);
      expect(await bytesOf(await fetch(`${origin}/snapshot/media/run-s3/showcase/title.png`))).toEqual(PNG);
      const cards = (await (await fetch(`${origin}/snapshot/runs.json`)).json()) as { runs: Array<{ id: string }> };
      expect(cards.runs.map((run) => run.id)).toEqual(['run-s3']);
    }
  });

  it('deletes an unpublished run\'s media from the bucket with the run', async () => {
    const job = await runningJob();
    expect((await put('run-del', 'shot.png', PNG, as(job))).status).toBe(201);
    await http.post(`/jobs/${job.jobId}/status`, job.jobToken, { state: 'failed', record: runRecord({ id: 'run-del', state: 'hung' }) });
    expect((await http.delete('/runs/run-del', operator)).status).toBe(200);
    expect((await fetch(`${otherBase}/runs/run-del/showcase/shot.png`)).status).toBe(404);
  });

  it('refuses a body over the cap with 413 and stores nothing of it', async () => {
    const job = await runningJob();
    const response = await put('run-big', 'big.png', Buffer.alloc(4000, 1), as(job));
    expect(response.status).toBe(413);
    expect((await fetch(`${otherBase}/runs/run-big/showcase/big.png`)).status).toBe(404);
  });

  it('serves nothing the run does not point at: other names, dot-names and traversal are 404', async () => {
    for (const url of ['/runs/run-s3/showcase/missing.png', '/runs/run-s3/showcase/.staging-x', '/runs/..%2Frun-s3/showcase/title.png', '/snapshot/current', '/snapshot/..%2Fcurrent', '/snapshot/runs']) {
      const response = await fetch(`${otherBase}${url}`);
      expect(response.status, url).toBe(404);
    }
  });

  it('answers 503 blob_store_unavailable fast while the bucket is down, and resumes by itself once it is back', async () => {
    const job = await runningJob();
    await s3.stop();
    try {
      for (const request of [
        () => put('run-out', 'shot.png', PNG, as(job)),
        () => fetch(`${otherBase}/runs/run-s3/showcase/title.png`),
        () => fetch(`${otherBase}/snapshot/runs.json`),
        () => fetch(`${base}/snapshot/refresh`, { method: 'POST' }),
      ]) {
        const began = Date.now();
        const response = await request();
        expect(Date.now() - began).toBeLessThan(FAST);
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        const { error } = (await response.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe('blob_store_unavailable');
        expect(error.message).not.toMatch(/S3RVER/);
      }
    } finally {
      await s3.start();
    }
    expect((await put('run-out', 'shot.png', PNG, as(job))).status).toBe(201);
    expect(await bytesOf(await fetch(`${otherBase}/runs/run-out/showcase/shot.png`))).toEqual(PNG);
  }, 30_000);
});

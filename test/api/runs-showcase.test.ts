import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, publishAndWait } from '../helpers/runs-test-helpers.js';
import { bearer, FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const MAX_BYTES = 1049; // SHOWCASE_UPLOAD_MAX_MIB=0.001
const JOB_MAX_FILES = 3;
const launch = { testCase: 'skiff-race', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let backend: TestBackend;
let base: string;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG, SERVICE_TOKEN: SERVICE, SHOWCASE_UPLOAD_MAX_MIB: '0.001', SHOWCASE_JOB_MAX_FILES: String(JOB_MAX_FILES), SHOWCASE_JOB_MAX_MIB: '0.002', ...FILES_UNDER_DATA_DIR }, { pricedModels: [launch.model] });
  await ingestCatalog(backend, ['skiff-race']);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await backend.auth.register('operator')).token;
});
afterAll(() => backend.close());

/** Enqueues and claims one job, then reports it running, as a dispatcher and driver do. */
async function runningJob(): Promise<{ jobId: string; jobToken: string }> {
  const enqueued = await http.post('/jobs', operator, launch);
  expect(enqueued.status, JSON.stringify(enqueued.body)).toBe(202);
  const { body } = await http.post('/jobs/next', SERVICE);
  await http.post(`/jobs/${body.jobId}/status`, body.jobToken, { state: 'running' });
  return body;
}

async function finish(job: { jobId: string; jobToken: string }, runId: string) {
  const record = runRecord({ id: runId, state: 'hung' });
  const answer = await http.post(`/jobs/${job.jobId}/status`, job.jobToken, { state: 'failed', record });
  expect(answer.status, JSON.stringify(answer.body)).toBe(204);
}

function put(runId: string, file: string, body: Buffer | string | ReadableStream, headers: Record<string, string> = {}) {
  return fetch(`${base}/runs/${runId}/showcase/${file}`, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);
}
const as = (job: { jobId: string; jobToken: string }) => ({ ...bearer(job.jobToken), 'x-svc-job-id': job.jobId });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe('PUT /runs/{id}/showcase/{file}', () => {
  it('stores a running job\'s image under the run it is producing, replaces it on a second PUT, and serves it', async () => {
    const job = await runningJob();
    const created = await put('run-a', 'shot.png', PNG, as(job));
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 'run-a', file: 'shot.png', kind: 'image', contentType: 'image/png', bytes: PNG.length });
    expect((await put('run-a', 'shot.png', PNG, as(job))).status).toBe(200);

    const served = await fetch(`${base}/runs/run-a/showcase/shot.png`);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);

    await finish(job, 'run-a');
    // Once the job has finished, it may still add media to the run it produced, and only to it.
    expect((await put('run-a', 'clip.webm', Buffer.alloc(64, 1), { ...as(job), 'content-type': 'video/webm' })).status).toBe(201);
    const other = await put('run-z', 'shot.png', PNG, as(job));
    expect(other.status).toBe(422);
    expect((await errorOf(other)).message).toContain(`Job ${job.jobId} is failed and produced run run-a`);
  });

  it('authenticates with the per-job token against x-svc-job-id: 401 without either or with another job\'s token, 404 for an unknown job', async () => {
    const [mine, theirs] = [await runningJob(), await runningJob()];
    const noToken = await put('run-b', 'shot.png', PNG, { 'x-svc-job-id': mine.jobId });
    expect(noToken.status).toBe(401);
    const noJob = await put('run-b', 'shot.png', PNG, bearer(mine.jobToken));
    expect(noJob.status).toBe(401);
    expect((await errorOf(noJob)).message).toContain('x-svc-job-id');
    const wrong = await put('run-b', 'shot.png', PNG, { ...bearer(theirs.jobToken), 'x-svc-job-id': mine.jobId });
    expect(wrong.status).toBe(401);
    expect(await errorOf(wrong)).toMatchObject({ code: 'unauthorized' });
    const unknown = await put('run-b', 'shot.png', PNG, { ...bearer(mine.jobToken), 'x-svc-job-id': 'no-such-job' });
    expect(unknown.status).toBe(404);
    expect(existsSync(join(join(backend.dataDir, 'run-media'), 'run-b'))).toBe(false);

    // A run another job produced is not this job's to decorate.
    await finish(theirs, 'run-c');
    const foreign = await put('run-c', 'shot.png', PNG, as(mine));
    expect(foreign.status).toBe(409);
    expect((await errorOf(foreign)).message).toContain(`Run run-c belongs to job ${theirs.jobId}`);
  });

  it('refuses what is not an image or video (415), an unsafe name or an empty body (422), and a body over the cap (413) leaving nothing behind', async () => {
    const job = await runningJob();
    const text = await put('run-d', 'notes.txt', 'hello', as(job));
    expect(text.status).toBe(415);
    expect(await errorOf(text)).toMatchObject({ code: 'unsupported_media_type', message: expect.stringContaining('"notes.txt"') });
    const unsafe = await put('run-d', 'a%5Cb.png', PNG, as(job));
    expect(unsafe.status).toBe(422);
    expect((await errorOf(unsafe)).message).toContain('one plain file name');
    const empty = await put('run-d', 'empty.png', Buffer.alloc(0), as(job));
    expect(empty.status).toBe(422);
    expect((await errorOf(empty)).message).toContain('empty');

    const declared = await put('run-d', 'big.png', Buffer.alloc(MAX_BYTES + 1), as(job));
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('SHOWCASE_UPLOAD_MAX_MIB') });
    // A chunked body announces no length: the bytes received enforce the cap.
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(400));
        controller.close();
      },
    });
    expect((await put('run-d', 'big.png', chunks, as(job))).status).toBe(413);
    expect(readdirSync(join(join(backend.dataDir, 'run-media'), 'run-d'), { recursive: true })).toEqual(['showcase']);
    expect((await fetch(`${base}/runs/run-d/showcase/big.png`)).status).toBe(404);
  });

  it('binds a job to the run its first upload names: another run id is 409, and no other job may upload for that run or report it', async () => {
    const [planter, other] = [await runningJob(), await runningJob()];
    expect((await put('run-g', 'shot.png', PNG, as(planter))).status).toBe(201);
    const elsewhere = await put('run-h', 'shot.png', PNG, as(planter));
    expect(elsewhere.status).toBe(409);
    expect(await errorOf(elsewhere)).toEqual({ code: 'conflict', message: `Job ${planter.jobId} uploads showcase media for run run-g (its first upload named it); it cannot upload for run run-h.` });
    expect(existsSync(join(join(backend.dataDir, 'run-media'), 'run-h'))).toBe(false);

    // run-g is the planter's before any record names it: media planted there never lands in
    // a run another job reports, because no other job may report it.
    const foreign = await put('run-g', 'more.png', PNG, as(other));
    expect(foreign.status).toBe(409);
    expect((await errorOf(foreign)).message).toContain(`Run run-g belongs to job ${planter.jobId}`);
    const report = await http.post(`/jobs/${other.jobId}/status`, other.jobToken, { state: 'failed', record: runRecord({ id: 'run-g', state: 'hung' }) });
    expect(report.status).toBe(409);
    expect((await http.get('/runs/run-g')).status).toBe(404);

    await finish(planter, 'run-g');
    expect((await http.get('/runs/run-g')).status).toBe(200);
    expect((await fetch(`${base}/runs/run-g/showcase/shot.png`)).status).toBe(200);
  });

  it('bounds what one job uploads in all: past SHOWCASE_JOB_MAX_FILES uploads or SHOWCASE_JOB_MAX_MIB it gets 413', async () => {
    const many = await runningJob();
    for (let i = 0; i < JOB_MAX_FILES; i++) expect((await put('run-i', `shot-${i}.png`, PNG, as(many))).status).toBe(201);
    const extra = await put('run-i', 'one-more.png', PNG, as(many));
    expect(extra.status).toBe(413);
    expect(await errorOf(extra)).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('SHOWCASE_JOB_MAX_FILES') });
    // A replaced file counts too: the bound is on what a job uploads, not on what stays.
    expect((await put('run-i', 'shot-0.png', PNG, as(many))).status).toBe(413);

    // SHOWCASE_JOB_MAX_MIB=0.002: 2,098 bytes, so two kilobytes fit and a third does not.
    const large = await runningJob();
    const kilobyte = Buffer.alloc(1000, 1);
    expect((await put('run-j', 'a.png', kilobyte, as(large))).status).toBe(201);
    expect((await put('run-j', 'b.png', kilobyte, as(large))).status).toBe(201);
    const declared = await put('run-j', 'c.png', kilobyte, as(large));
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).message).toContain('SHOWCASE_JOB_MAX_MIB');
    // A chunked body announces no length: the bytes received count.
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(200));
        controller.close();
      },
    });
    expect((await put('run-j', 'c.png', chunks, as(large))).status).toBe(413);
    expect(readdirSync(join(join(backend.dataDir, 'run-media'), 'run-j', 'showcase')).sort()).toEqual(['a.png', 'b.png']);
  });

  it('carries a published run\'s showcase into the snapshot, and DELETE removes an unpublished run\'s media', async () => {
    const job = await runningJob();
    await put('run-e', 'title.png', PNG, as(job));
    await finish(job, 'run-e');
    await publishAndWait(backend, operator, 'run-e');
    expect((await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' })).json()).toMatchObject({ refreshed: true });

    const snapshotDir = backend.config.snapshotDir;
    const detail = JSON.parse(readFileSync(join(snapshotDir, 'runs', 'run-e.json'), 'utf8'));
    expect(detail.showcase).toEqual([{ file: 'title.png', kind: 'image', key: 'media/run-e/showcase/title.png' }]);
    expect(readFileSync(join(snapshotDir, 'media/run-e/showcase/title.png'))).toEqual(PNG);

    const doomed = await runningJob();
    await put('run-f', 'shot.png', PNG, as(doomed));
    await finish(doomed, 'run-f');
    expect((await http.delete('/runs/run-f', operator)).status).toBe(200);
    expect(existsSync(join(join(backend.dataDir, 'run-media'), 'run-f'))).toBe(false);
    expect((await fetch(`${base}/runs/run-f/showcase/shot.png`)).status).toBe(404);
  });
});

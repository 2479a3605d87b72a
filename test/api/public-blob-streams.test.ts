import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { ingestCatalog } from '../helpers/runs-test-helpers.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// Public media (run showcase files, snapshot files) is streamed from the bucket through a
// pool of its own, PUBLIC_BLOB_STREAMS sockets, counted against the stream limits: slow
// anonymous readers cannot take the sockets driver uploads and definition fetches need. A
// HEAD answers from the object's metadata and never reads its body.
const SERVICE = 'dispatch-secret';
const launch = { testCase: 'skiff-race', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
const LIMIT = 2;
/** Larger than every buffer on the way (loopback sockets, the SDK's stream), so a reader that never reads holds its stream. */
const LARGE = Buffer.alloc(24 * 1024 * 1024, 7);
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
/** A refusal must be fast (ms). */
const FAST = 2000;

/** A loopback TCP proxy in front of the S3 server counting the bytes the bucket sends back. */
interface CountingProxy { endpoint: string; received(): number; close(): void }
async function countingProxy(upstream: string): Promise<CountingProxy> {
  const { port } = new URL(upstream);
  let received = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const bucket = connect(Number(port), '127.0.0.1');
    sockets.add(client).add(bucket);
    bucket.on('data', (chunk: Buffer) => { received += chunk.length; });
    client.pipe(bucket).pipe(client);
    const end = () => { client.destroy(); bucket.destroy(); };
    client.on('error', end).on('close', end);
    bucket.on('error', end).on('close', end);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    close: () => { for (const socket of sockets) socket.destroy(); server.close(); },
  };
}

let s3: TestS3Server;
let proxy: CountingProxy;
let backend: TestBackend;
let base: string;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  s3 = await startTestS3();
  proxy = await countingProxy(s3.endpoint);
  backend = await startTestBackend(
    { ...s3.env('public-streams'), AWS_ENDPOINT_URL: proxy.endpoint, CATALOG_DIR: EXAMPLE_CATALOG, SERVICE_TOKEN: SERVICE, SNAPSHOT_URL: 'http://127.0.0.1/snapshot/', PUBLIC_BLOB_STREAMS: String(LIMIT) },
    { pricedModels: [launch.model] },
  );
  await ingestCatalog(backend, ['skiff-race']);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  http = jobsHttp(base);
  operator = (await backend.auth.register('operator')).token;
}, 60_000);
afterAll(async () => {
  await backend?.close();
  proxy?.close();
  await s3?.close();
});

async function runningJob(): Promise<{ jobId: string; jobToken: string }> {
  await http.post('/jobs', operator, launch);
  const { body } = await http.post('/jobs/next', SERVICE);
  await http.post(`/jobs/${body.jobId}/status`, body.jobToken, { state: 'running' });
  return body;
}
const put = (job: { jobId: string; jobToken: string }, runId: string, file: string, body: Buffer) =>
  fetch(`${base}/runs/${runId}/showcase/${file}`, { method: 'PUT', body, headers: { ...bearer(job.jobToken), 'x-svc-job-id': job.jobId } });

/** A GET whose reader takes the headers and then reads nothing: it holds its stream open. */
function stalledReader(path: string): Promise<{ response: IncomingMessage; request: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, (response) => {
      response.pause();
      resolve({ response, request });
    });
    request.on('error', reject).end();
  });
}

describe('public media from the bucket', () => {
  let job: { jobId: string; jobToken: string };

  it('answers a HEAD of a large showcase file from its metadata, reading none of its body', async () => {
    job = await runningJob();
    expect((await put(job, 'run-big', 'movie.mp4', LARGE)).status).toBe(201);
    const before = proxy.received();
    const began = Date.now();
    const head = await fetch(`${base}/runs/run-big/showcase/movie.mp4`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(LARGE.length));
    expect(head.headers.get('content-type')).toBe('video/mp4');
    expect(Date.now() - began).toBeLessThan(FAST);
    // Given time to drain a body it might have opened: a HEAD answer's headers, not 24 MiB.
    await new Promise((done) => setTimeout(done, 500));
    expect(proxy.received() - before).toBeLessThan(64 * 1024);
    expect((await fetch(`${base}/runs/run-big/showcase/absent.mp4`, { method: 'HEAD' })).status).toBe(404);
  }, 30_000);

  it('refuses a reader beyond PUBLIC_BLOB_STREAMS with a fast 503 too_many_streams while a driver upload on the process still succeeds', async () => {
    const readers = await Promise.all(Array.from({ length: LIMIT }, () => stalledReader('/runs/run-big/showcase/movie.mp4')));
    try {
      for (const { response } of readers) expect(response.statusCode).toBe(200);
      const began = Date.now();
      const refused = await fetch(`${base}/runs/run-big/showcase/movie.mp4`);
      expect(Date.now() - began).toBeLessThan(FAST);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_streams');
      // A HEAD holds no stream: still answered.
      expect((await fetch(`${base}/runs/run-big/showcase/movie.mp4`, { method: 'HEAD' })).status).toBe(200);
      expect((await put(job, 'run-big', 'title.png', PNG)).status).toBe(201);
    } finally {
      for (const { request } of readers) request.destroy();
    }
    // The readers gone, their streams are released.
    await new Promise((done) => setTimeout(done, 200));
    const again = await fetch(`${base}/runs/run-big/showcase/title.png`);
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer())).toEqual(PNG);
  }, 30_000);
});

/**
 * Blob reads have a policy (issue 39 item 7): one API process on the `s3` driver (a local S3
 * server of the scenario's own). 100 slow anonymous readers of a 48 MiB showcase file, from
 * 4 addresses, while 10 drivers upload showcase files and a cold definition copy is fetched
 * through the same process. Proves the readers past PUBLIC_BLOB_STREAMS (64) are refused at
 * once with 503 `too_many_streams` and Retry-After, every upload is 201, a HEAD answers from
 * metadata; then, with the bucket down, that reads, uploads, launches and the catalog answer
 * a fast 503 `blob_store_unavailable`, never a 404 or a catalog with cases missing.
 */
import { rmSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { LAUNCH, printFigures, SERVICE_TOKEN, startChaosService, type ChaosService } from './lib/chaos-service.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const READERS = 100;
const ADDRESSES = 4;
const POOL = 64;
const UPLOADS = 10;
const LARGE = Buffer.alloc(48 * 1024 * 1024, 9);
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(256 * 1024, 1)]);
/** A refusal or a HEAD with the pool full counts as fast under this (ms). */
const FAST = 1000;
/** The same for the refusals of the burst, which wait behind 100 connections opened at once on a shared 2-core machine (ms). */
const BURST_FAST = 3000;
/** The bucket down: every answer within the driver's request deadline (5 s) and a margin (ms). */
const OUTAGE_FAST = 6000;

interface Reader { status: number; code: string | null; retryAfter: string | null; ms: number; request: ClientRequest }

/** A GET that reads one chunk a second (about 64 KiB/s): a slow client, never idle long enough to be cut. */
function slowReader(base: string, path: string, localAddress: string): Promise<Reader> {
  const began = performance.now();
  return new Promise((resolve) => {
    const request = httpRequest(`${base}${path}`, { localAddress }, (response) => {
      const answer = { status: response.statusCode ?? 0, retryAfter: (response.headers['retry-after'] as string | undefined) ?? null, ms: performance.now() - began, request };
      if (answer.status !== 200) {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ ...answer, code: (JSON.parse(text || '{}') as { error?: { code?: string } }).error?.code ?? null }));
        return;
      }
      response.on('data', () => {
        response.pause();
        setTimeout(() => response.resume(), 1000).unref();
      });
      response.on('error', () => {});
      resolve({ ...answer, code: null });
    });
    request.on('error', () => resolve({ status: 0, code: null, retryAfter: null, ms: performance.now() - began, request }));
    request.end();
  });
}

/** A running job whose driver may upload showcase files. */
async function runningJob(chaos: ChaosService): Promise<{ jobId: string; jobToken: string }> {
  const launched = await chaos.call('POST', '/jobs', chaos.operator, LAUNCH);
  if (launched.status !== 202) throw new Error(`launch refused: ${launched.status} ${JSON.stringify(launched.body)}`);
  const claimed = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN);
  if (claimed.status !== 200) throw new Error(`claim refused: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  await chaos.call('POST', `/jobs/${claimed.body.jobId}/status`, claimed.body.jobToken, { state: 'running' });
  return claimed.body;
}

async function upload(base: string, job: { jobId: string; jobToken: string }, runId: string, file: string, body: Buffer) {
  const began = performance.now();
  const response = await fetch(`${base}/runs/${runId}/showcase/${file}`, {
    method: 'PUT', body, headers: { authorization: `Bearer ${job.jobToken}`, 'x-svc-job-id': job.jobId }, signal: AbortSignal.timeout(60_000),
  }).catch(() => null);
  const text = response ? await response.text() : '';
  return { status: response?.status ?? 0, code: text.includes('"code"') ? (JSON.parse(text) as { error: { code: string } }).error.code : null, ms: performance.now() - began };
}

async function timed(run: () => Promise<{ status: number; code?: string | null }>) {
  const began = performance.now();
  const answer = await run();
  return { ...answer, ms: performance.now() - began };
}

export default async function bucketSlowReaders(): Promise<ScenarioResult> {
  const s3 = await startTestS3();
  let chaos: ChaosService | null = null;
  const readers: Reader[] = [];
  try {
    chaos = await startChaosService({ ...s3.env('slow-readers'), PUBLIC_BLOB_STREAMS: String(POOL) });
    const base = chaos.service.url;
    const owner = await runningJob(chaos);
    const big = await upload(base, owner, 'run-big', 'movie.mp4', LARGE);
    if (big.status !== 201) throw new Error(`the large showcase was not stored: ${big.status} ${big.code}`);
    const drivers = await Promise.all(Array.from({ length: UPLOADS }, () => runningJob(chaos!)));

    // The readers, 25 from each address (under STREAMS_PER_CLIENT, 32), all at once.
    readers.push(...(await Promise.all(Array.from({ length: READERS }, (_, i) => slowReader(base, '/runs/run-big/showcase/movie.mp4', `127.0.3.${1 + (i % ADDRESSES)}`)))));
    const admitted = readers.filter((reader) => reader.status === 200);
    const refused = readers.filter((reader) => reader.status !== 200);
    const refusedRight = refused.filter((reader) => reader.status === 503 && reader.code === 'too_many_streams' && reader.retryAfter === '5');
    const slowestRefusal = Math.max(0, ...refused.map((reader) => reader.ms));
    const oneMore = await slowReader(base, '/runs/run-big/showcase/movie.mp4', '127.0.3.9');
    oneMore.request.destroy();

    // With every admitted reader streaming: driver uploads, a HEAD, a cold definition copy.
    const uploads = await Promise.all(drivers.map((job, i) => upload(base, job, `run-up-${i}`, 'title.png', PNG)));
    const head = await timed(async () => {
      const response = await fetch(`${base}/runs/run-big/showcase/movie.mp4`, { method: 'HEAD' });
      return { status: response.status, code: response.headers.get('content-length') };
    });
    rmSync(join(chaos.service.options.dataDir, 'definitions'), { recursive: true, force: true });
    const coldFetch = await timed(() => chaos!.call('GET', `/test-cases/${LAUNCH.testCase}/versions/${LAUNCH.version}`));
    const launchDuring = await timed(() => chaos!.call('POST', '/jobs', chaos!.operator, LAUNCH));

    for (const reader of readers) reader.request.destroy();
    await sleep(500);

    // The bucket down, this machine's definition copies gone (a cold cache).
    rmSync(join(chaos.service.options.dataDir, 'definitions'), { recursive: true, force: true });
    await s3.stop();
    const outage: Record<string, { status: number; code?: string | null; ms: number }> = {};
    try {
      outage['GET showcase'] = await timed(() => chaos!.call('GET', '/runs/run-up-0/showcase/title.png'));
      outage['HEAD showcase'] = await timed(async () => ({ status: (await fetch(`${base}/runs/run-big/showcase/movie.mp4`, { method: 'HEAD' })).status }));
      outage['driver upload'] = await upload(base, drivers[0]!, 'run-up-0', 'again.png', PNG);
      outage['POST /jobs'] = await timed(() => chaos!.call('POST', '/jobs', chaos!.operator, LAUNCH));
      outage['GET /test-cases'] = await timed(() => chaos!.call('GET', '/test-cases'));
      for (const answer of Object.values(outage)) answer.code = (answer as { body?: { error?: { code?: string } } }).body?.error?.code ?? answer.code ?? null;
    } finally {
      await s3.start();
    }
    await sleep(500);
    const after = await timed(() => chaos!.call('POST', '/jobs', chaos!.operator, LAUNCH));

    const uploaded = uploads.filter((answer) => answer.status === 201).length;
    const slowestUpload = Math.max(...uploads.map((answer) => answer.ms));
    const outageAnswers = Object.values(outage);
    const slowestOutage = Math.max(...outageAnswers.map((answer) => answer.ms));
    printFigures({
      [`slow readers of a 48 MiB showcase (pool ${POOL})`]: `${READERS}: ${admitted.length} streaming, ${refused.length} refused (${refusedRight.length} × 503 too_many_streams, Retry-After: 5)`,
      'slowest refusal of the burst (ms)': slowestRefusal.toFixed(0),
      'one more reader with the pool full': `${oneMore.status} ${oneMore.code} in ${oneMore.ms.toFixed(0)} ms`,
      'driver uploads with the readers streaming': `${uploaded} of ${UPLOADS} × 201, slowest ${slowestUpload.toFixed(0)} ms`,
      'HEAD of the 48 MiB file': `${head.status}, Content-Length ${head.code}, ${head.ms.toFixed(0)} ms`,
      'cold definition fetch with the readers streaming': `${coldFetch.status} in ${coldFetch.ms.toFixed(0)} ms`,
      'launch with the readers streaming': `${launchDuring.status} in ${launchDuring.ms.toFixed(0)} ms`,
      ...Object.fromEntries(Object.entries(outage).map(([name, answer]) => [`bucket down: ${name}`, `${answer.status} ${answer.code ?? ''} in ${answer.ms.toFixed(0)} ms`])),
      'launch once the bucket is back': `${after.status} in ${after.ms.toFixed(0)} ms`,
    });
    return judge(
      {
        streaming: admitted.length,
        refused: refused.length,
        'slowest refusal ms': Math.round(slowestRefusal),
        'one more reader ms': Math.round(oneMore.ms),
        uploads: `${uploaded}/${UPLOADS}`,
        'slowest upload ms': Math.round(slowestUpload),
        'bucket down: slowest 503 ms': Math.round(slowestOutage),
      },
      {
        [`${POOL} readers streaming, the other ${READERS - POOL} refused with 503 too_many_streams and Retry-After`]: admitted.length === POOL && refusedRight.length === READERS - POOL,
        [`every refusal of the burst within ${BURST_FAST} ms`]: slowestRefusal < BURST_FAST,
        [`one more reader refused with 503 too_many_streams within ${FAST} ms`]: oneMore.status === 503 && oneMore.code === 'too_many_streams' && oneMore.ms < FAST,
        'every driver upload 201 with the readers streaming': uploaded === UPLOADS,
        'a HEAD answered from metadata with the pool full': head.status === 200 && head.code === String(LARGE.length) && head.ms < FAST,
        'a cold definition copy fetched with the pool full': coldFetch.status === 200,
        'a launch accepted with the pool full': launchDuring.status === 202,
        'the bucket down: every answer 503 blob_store_unavailable (HEAD 503)': outageAnswers.every((answer) => answer.status === 503) &&
          Object.entries(outage).every(([name, answer]) => name.startsWith('HEAD') || answer.code === 'blob_store_unavailable'),
        [`the bucket down: every answer within ${OUTAGE_FAST} ms`]: slowestOutage < OUTAGE_FAST,
        'launches resume once the bucket is back': after.status === 202,
      },
    );
  } finally {
    for (const reader of readers) reader.request.destroy();
    await chaos?.close();
    await s3.close();
  }
}

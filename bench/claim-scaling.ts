/**
 * The claim benchmark's scaling sections (run by `npm run bench -- claim`): claim latency as
 * the queue grows to a million jobs, Redis and SQLite bytes per queued job beside BullMQ's own
 * `Queue.add` job, and a claim behind ten thousand jobs held by a harness cap.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { setHarnessCap } from '../src/jobs/harness-caps.js';
import { redisOptionsFromUrl } from '../src/redis/managed-redis.js';
import { BENCH_LAUNCH, CLAIM_HEADERS, type ClaimApp } from './lib/claim-app.js';
import type { BenchResponse } from './lib/keep-alive-client.js';
import type { ClaimTimings } from './lib/time-claims.js';
import { ms, timeInterleaved, type LatencySummary } from './lib/stats.js';

export const DEPTHS = [1_000, 100_000, 1_000_000];
const DEPTH_CLAIMS = 3000;
const BULLMQ_SAMPLE_JOBS = 100_000;
const HELD_JOBS = 10_000;

type Send = (method: string, path: string, body?: string, headers?: Record<string, string>) => Promise<BenchResponse>;
export interface Clients {
  /** One keep-alive connection to the app. */
  claim: Send;
  /** One keep-alive connection to the no-op server (the floor, interleaved with every series). */
  noop: Send;
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

const sqliteBytes = (app: ClaimApp) =>
  (app.db.pragma('page_count', { simple: true }) as number) * (app.db.pragma('page_size', { simple: true }) as number);

export interface DepthRow {
  depth: number;
  claim: LatencySummary;
  floor: LatencySummary;
  /** Jobs enqueued to reach the depth, and how long that took. */
  added: number;
  fillSeconds: number;
}

export interface Footprint {
  /** Redis bytes per queued run job (BullMQ job, run state, wait-list entry), over the largest fill. */
  redisPerJob: number;
  sqlitePerJob: number;
  bullmqPerJob: number;
}

/**
 * Claim latency with `depth` jobs queued behind the claims (one dispatcher, interleaved with
 * the floors), for each depth in turn: the queue is
 * filled to depth + the claims measured, so it holds at least `depth` throughout. The queue
 * starts empty. Memory per job is read around the largest fill.
 */
export async function claimLatencyByDepth(
  app: ClaimApp,
  timeClaims: (claims: number) => Promise<ClaimTimings>,
  redisUrl: string,
): Promise<{ rows: DepthRow[]; footprint: Omit<Footprint, 'bullmqPerJob'> }> {
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const rows: DepthRow[] = [];
  let queued = 0;
  let footprint = { redisPerJob: 0, sqlitePerJob: 0 };
  try {
    for (const depth of DEPTHS) {
      const adding = depth + DEPTH_CLAIMS - queued;
      const [memoryBefore, sqliteBefore] = [await usedMemory(redis), sqliteBytes(app)];
      const started = process.hrtime.bigint();
      await app.fill(adding);
      const fillSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      footprint = { redisPerJob: ((await usedMemory(redis)) - memoryBefore) / adding, sqlitePerJob: (sqliteBytes(app) - sqliteBefore) / adding };
      const { claim, noopPost } = await timeClaims(DEPTH_CLAIMS);
      queued = depth;
      rows.push({ depth, claim, floor: noopPost, added: adding, fillSeconds });
    }
  } finally {
    redis.disconnect();
  }
  return { rows, footprint };
}

/**
 * Redis bytes of a plain BullMQ job holding the same data as a run job, added with `Queue.add`:
 * under BullMQ's own numbered ids, or under a UUID job id as every run job has (the id is in
 * the job's key, its wait-list entry and its events).
 */
export async function bullmqBytesPerJob(redisUrl: string, data: object, ids: 'numbered' | 'uuid'): Promise<number> {
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const connection = new Redis({ ...redisOptionsFromUrl(redisUrl), maxRetriesPerRequest: null });
  const queue = new Queue('bullmq-own', { connection, prefix: `bench-own-${randomUUID().slice(0, 8)}` });
  try {
    await queue.waitUntilReady();
    const before = await usedMemory(redis);
    for (let i = 0; i < BULLMQ_SAMPLE_JOBS; i += 1000) {
      await Promise.all(Array.from({ length: 1000 }, () => queue.add('run', data, ids === 'uuid' ? { jobId: randomUUID() } : {})));
    }
    const perJob = ((await usedMemory(redis)) - before) / BULLMQ_SAMPLE_JOBS;
    await queue.obliterate({ force: true });
    return perJob;
  } finally {
    await queue.close();
    connection.disconnect();
    redis.disconnect();
  }
}

export interface HeldClaim {
  /** The claim that found the one claimable job behind the held ones. */
  first: { ms: number; status: number; claimedFree: boolean };
  /** Later claims with nothing claimable, interleaved with the floor. */
  repeated: LatencySummary;
  floor: LatencySummary;
  waitListLength: number;
  heldCount: number;
}

/**
 * One job of a harness capped at 1 is in flight; `HELD_JOBS` more of that harness are
 * enqueued, then one job of an uncapped harness. The claim answers the uncapped one, and
 * claims after it find nothing without walking the held jobs again. The queue must be empty
 * of claimable jobs when this starts.
 */
export async function claimBehindHeld(app: ClaimApp, clients: Clients): Promise<HeldClaim> {
  const ctx = app.app.runJobs;
  const capped = { ...BENCH_LAUNCH, harness: 'codex' };
  await setHarnessCap(ctx, app.app.harnessConfig, 'codex', 1);
  await app.fill(1, capped);
  const inFlight = await clients.claim('POST', '/jobs/next', undefined, CLAIM_HEADERS);
  if (inFlight.status !== 200) throw new Error(`the capped harness's first job was not claimed (${inFlight.status})`);
  await app.fill(HELD_JOBS, capped);
  const [free] = await app.fill(1);
  const started = process.hrtime.bigint();
  const answer = await clients.claim('POST', '/jobs/next', undefined, CLAIM_HEADERS);
  const firstMs = Number(process.hrtime.bigint() - started) / 1e6;
  const claimedFree = answer.status === 200 && (JSON.parse(answer.body) as { jobId: string }).jobId === free;
  const [floor, repeated] = await timeInterleaved(2000, 100, [
    () => clients.noop('POST', '/noop'),
    () => clients.claim('POST', '/jobs/next', undefined, CLAIM_HEADERS),
  ]);
  const waitListLength = await ctx.queue.waitingCount();
  const heldCount = (await ctx.queue.heldIds()).length;
  return { first: { ms: firstMs, status: answer.status, claimedFree }, repeated: repeated!, floor: floor!, waitListLength, heldCount };
}

export const depthRow = (row: DepthRow) => ({
  'queued jobs': row.depth.toLocaleString(),
  'claim p50': ms(row.claim.p50),
  'claim p99': ms(row.claim.p99),
  'no-op p50': ms(row.floor.p50),
  'claim / no-op': `${(row.claim.p50 / row.floor.p50).toFixed(2)}x`,
  'enqueued (jobs/s)': Math.round(row.added / row.fillSeconds),
});

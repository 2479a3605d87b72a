/**
 * The claim benchmark's scaling sections (run by `npm run bench -- claim`): claim latency as
 * the queue grows to a million jobs, Redis and SQLite bytes per queued job beside BullMQ's own
 * `Queue.add` job, a claim behind ten thousand jobs held by a harness cap, and a halt's step
 * from the middle of the million.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { jobStateCounts } from '../src/db/job-state-counts.js';
import { recordCancel, SWEEP_STEP } from '../src/jobs/cancel-jobs.js';
import { setHarnessCap } from '../src/jobs/harness-caps.js';
import { RunQueue, type QueuedRun } from '../src/queue/run-queue.js';
import { redisOptionsFromUrl } from '../src/redis/managed-redis.js';
import { benchRedis } from './lib/bench-redis.js';
import { BENCH_LAUNCH, CLAIM_HEADERS, SERVICE_TOKEN, startClaimApp, type ClaimApp } from './lib/claim-app.js';
import { keepAliveClient, type BenchResponse } from './lib/keep-alive-client.js';
import { timeClaimsAcross } from './lib/time-claims.js';
import { longestStall, ms, timeInterleaved, type LatencySummary } from './lib/stats.js';

export const DEPTHS = [1_000, 100_000, 1_000_000];
const DEPTH_CLAIMS = 3000;
/** Untimed rounds first: each depth's app is new, its connections and caches cold. */
const DEPTH_WARMUP = 300;
/** Jobs per Redis bytes sample. */
const BYTES_SAMPLE_JOBS = 100_000;
const HELD_JOBS = 10_000;
/**
 * Claims timed behind the held jobs, each just after its job's enqueue; the median is judged.
 * One claim alone is at the machine's mercy: on two vCPUs a lone claim after an enqueue took
 * 0.7–2.4 ms with nothing held in its way, and one run's single claim read 4.97 ms, where
 * the next runs' read 1.45 and 1.50.
 */
const FRESH_CLAIMS = 5;
/** Jobs whose walk from the newest end of the wait list to the middle is timed (see haltFromMiddle). */
const WALKS = 20;

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
  /** The no-op POST series timed in the same rounds as every depth's claims. */
  floor: LatencySummary;
  /** Jobs enqueued to reach the depth, and how long that took. */
  added: number;
  fillSeconds: number;
  /** The in-flight job counts `/metrics` and `/status` need, run on this thread (ms). */
  countsInline: number;
  /** How long a `GET /metrics` scrape held the server's event loop (ms). */
  scrapeHold: number;
}

/**
 * Claim latency with each of DEPTHS jobs queued behind the claims. Each depth has an app and
 * a redis-server of its own, filled to depth + the claims (so it holds at least `depth`
 * throughout), and the claims of all of them are timed in the same rounds, one per app per
 * round beside one no-op POST: every depth sees the same moments of the machine. (Timed one
 * depth after another, minutes apart, the same depth's claim/no-op ratio moved by ±10% from
 * block to block, as much as the target allows between depths.) SQLite bytes per job are
 * read around the largest fill. At each depth a `GET /metrics` scrape is timed for how long
 * it holds the event loop, beside its job counts run on this thread.
 */
export interface HaltStep {
  queued: number;
  /** Jobs the step canceled. */
  canceled: number;
  /** The cancel call, ms. */
  stepMs: number;
  /** Walking the wait list from its newest end to one of them, as an LREM does, ms per job. */
  walkMs: number;
}

/**
 * One step of a halt (SWEEP_STEP queued jobs canceled by id, through the queue's script and
 * recorded as a halt records it) from the middle of a queue, beside the walk an LREM makes
 * from the nearer end to each of them (LPOS to the entry, which leaves the list as it is),
 * timed on the same Redis. Taking each job out by such a walk was the cancel's cost before
 * it left deep entries for the claims to drop.
 */
async function haltFromMiddle(app: ClaimApp, middle: string[]): Promise<HaltStep> {
  const { runJobs } = app.app;
  const queued = await runJobs.queue.waitingCount();
  let started = performance.now();
  for (const id of middle.slice(0, WALKS)) await app.app.jobsRedis.lpos(runJobs.queue.keys.wait, id);
  const walkMs = (performance.now() - started) / WALKS;
  started = performance.now();
  const result = await runJobs.queue.cancel('waiting', 'bench halt', { ids: middle });
  const stepMs = performance.now() - started;
  recordCancel(runJobs, result, 'bench halt');
  return { queued, canceled: result.canceled.length, stepMs, walkMs };
}

export async function claimLatencyByDepth(noopUrl: string): Promise<{ rows: DepthRow[]; sqlitePerJob: number; halt: HaltStep }> {
  const depths: Array<{ depth: number; redis: Awaited<ReturnType<typeof benchRedis>>; app: ClaimApp; added: number; fillSeconds: number; sqliteBytes: number }> = [];
  // SWEEP_STEP jobs from the middle of the latest fill (the largest, when the fills are done).
  let middle: string[] = [];
  try {
    for (const depth of DEPTHS) {
      const redis = await benchRedis({ own: true });
      const app = await startClaimApp(redis.url).catch(async (error: unknown) => {
        await redis.stop();
        throw error;
      });
      const added = depth + DEPTH_WARMUP + DEPTH_CLAIMS;
      const entry = { depth, redis, app, added, fillSeconds: 0, sqliteBytes: sqliteBytes(app) };
      depths.push(entry);
      const started = process.hrtime.bigint();
      const ids = await app.fill(added);
      middle = ids.slice(ids.length / 2, ids.length / 2 + SWEEP_STEP);
      entry.fillSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      entry.sqliteBytes = sqliteBytes(app) - entry.sqliteBytes;
    }
    const largest = depths.at(-1)!;
    const sqlitePerJob = largest.sqliteBytes / largest.added;
    const { noopPost, claims } = await timeClaimsAcross(depths.map(({ app }) => app.url), noopUrl, SERVICE_TOKEN, DEPTH_CLAIMS, DEPTH_WARMUP);
    const rows: DepthRow[] = [];
    for (const [i, { depth, app, added, fillSeconds }] of depths.entries()) {
      const countsStarted = performance.now();
      await jobStateCounts(app.app.store)();
      const countsInline = performance.now() - countsStarted;
      const client = keepAliveClient(app.url);
      const scrapeHold = await longestStall(() => client.send('GET', '/metrics')).finally(() => client.close());
      rows.push({ depth, claim: claims[i]!, floor: noopPost, added, fillSeconds, countsInline, scrapeHold });
    }
    return { rows, sqlitePerJob, halt: await haltFromMiddle(largest.app, middle) };
  } finally {
    for (const { app, redis } of depths) {
      await app.close();
      await redis.stop();
    }
  }
}

/** One of the app's jobs as the run queue took it (launch data, subject, harness, origin), read back from Redis. */
export async function queuedRunOf(app: ClaimApp, id: string): Promise<QueuedRun> {
  const { keys } = app.app.runJobs.queue;
  const redis = app.app.jobsRedis;
  const data = await redis.hget(keys.bullJobPrefix + id, 'data');
  const [subject, harness, jam, seq, origin, maxRuntime] = await redis.hmget(keys.run(id), 'subject', 'harness', 'jam', 'seq', 'origin', 'maxRuntime');
  if (data === null || !subject || !harness) throw new Error(`job ${id} is not in Redis`);
  return {
    id, seq: Number(seq), harness, jam: jam ?? '', request: JSON.parse(data) as object, subjectJson: subject,
    origin: origin || null, maxRuntimeSeconds: maxRuntime ? Number(maxRuntime) : null,
  };
}

export interface RedisBytes {
  /** A run job as the run queue's script writes it: BullMQ job hash, run state, wait-list entry. */
  runJob: number;
  /** BullMQ's own `Queue.add` job with the same data, under a UUID id as a run job has. */
  bullmqUuid: number;
  /** The same under BullMQ's own numbered ids. */
  bullmqNumbered: number;
}

/**
 * Redis bytes per queued job, each figure a sample of BYTES_SAMPLE_JOBS jobs on a throwaway
 * server of its own, emptied before each sample, so every sample grows the same empty
 * keyspace by the same count. (Sampled on the bench's shared server after the million-job
 * fill, BullMQ's UUID job read 262 bytes, below its numbered one: the main dictionary's
 * old table, freed once rehashed, fell inside its sample.) The run job is `model` copied
 * under fresh ids through the run queue's own script; BullMQ's job has the same data.
 */
export async function redisBytesPerJob(model: QueuedRun): Promise<RedisBytes> {
  const server = await benchRedis({ own: true });
  const redis = new Redis(redisOptionsFromUrl(server.url));
  const sample = async (add: (count: number) => Promise<unknown>) => {
    await redis.flushall();
    const before = await usedMemory(redis);
    for (let i = 0; i < BYTES_SAMPLE_JOBS; i += 1000) await add(1000);
    return ((await usedMemory(redis)) - before) / BYTES_SAMPLE_JOBS;
  };
  const bullmq = async (ids: 'uuid' | 'numbered') => {
    const connection = new Redis({ ...redisOptionsFromUrl(server.url), maxRetriesPerRequest: null });
    const queue = new Queue('bullmq-own', { connection, prefix: 'bytes-own' });
    try {
      await queue.waitUntilReady();
      return await sample((count) => Promise.all(Array.from({ length: count }, () => queue.add('run', model.request, ids === 'uuid' ? { jobId: randomUUID() } : {}))));
    } finally {
      await queue.close();
      connection.disconnect();
    }
  };
  try {
    const queue = new RunQueue({ redis, prefix: 'bytes' });
    let seq = 0;
    const copies = (count: number) => Array.from({ length: count }, () => {
      const id = randomUUID();
      return { ...model, id, seq: (seq += 1), subjectJson: model.subjectJson.replaceAll(model.id, id) };
    });
    const runJob = await sample((count) => queue.add(copies(count))).finally(() => queue.close());
    return { runJob, bullmqUuid: await bullmq('uuid'), bullmqNumbered: await bullmq('numbered') };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

export interface HeldClaim {
  /** Claims that each found the one claimable job queued behind the held ones: ms, and whether every one answered it. */
  fresh: { ms: number[]; status: number; claimedFree: boolean };
  /** Later claims with nothing claimable, interleaved with the floor. */
  repeated: LatencySummary;
  floor: LatencySummary;
  waitListLength: number;
  heldCount: number;
}

/**
 * One job of a harness capped at 1 is in flight; `HELD_JOBS` more of that harness are
 * enqueued, then, FRESH_CLAIMS times, one job of an uncapped harness and a claim, which
 * answers it. Claims after those find nothing without walking the held jobs again. The
 * queue must be empty of claimable jobs when this starts.
 */
export async function claimBehindHeld(app: ClaimApp, clients: Clients): Promise<HeldClaim> {
  const ctx = app.app.runJobs;
  const capped = { ...BENCH_LAUNCH, harness: 'codex' };
  await setHarnessCap(ctx, app.app.harnessConfig, 'codex', 1);
  await app.fill(1, capped);
  const inFlight = await clients.claim('POST', '/jobs/next', undefined, CLAIM_HEADERS);
  if (inFlight.status !== 200) throw new Error(`the capped harness's first job was not claimed (${inFlight.status})`);
  await app.fill(HELD_JOBS, capped);
  const fresh: HeldClaim['fresh'] = { ms: [], status: 200, claimedFree: true };
  for (let i = 0; i < FRESH_CLAIMS; i += 1) {
    const [free] = await app.fill(1);
    const started = process.hrtime.bigint();
    const answer = await clients.claim('POST', '/jobs/next', undefined, CLAIM_HEADERS);
    fresh.ms.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (answer.status !== 200) fresh.status = answer.status;
    fresh.claimedFree &&= answer.status === 200 && (JSON.parse(answer.body) as { jobId: string }).jobId === free;
  }
  const [floor, repeated] = await timeInterleaved(2000, 100, [
    () => clients.noop('POST', '/noop'),
    () => clients.claim('POST', '/jobs/next', undefined, CLAIM_HEADERS),
  ]);
  const waitListLength = await ctx.queue.waitListLength();
  let heldCount = 0;
  for await (const page of ctx.queue.heldPages(HELD_JOBS)) heldCount += page.length;
  return { fresh, repeated: repeated!, floor: floor!, waitListLength, heldCount };
}

export const depthRow = (row: DepthRow) => ({
  'queued jobs': row.depth.toLocaleString(),
  'claim p50': ms(row.claim.p50),
  'claim p99': ms(row.claim.p99),
  'no-op p50': ms(row.floor.p50),
  'claim / no-op': `${(row.claim.p50 / row.floor.p50).toFixed(2)}x`,
  'enqueued (jobs/s)': Math.round(row.added / row.fillSeconds),
  'job counts inline': ms(row.countsInline),
  '/metrics held the loop': ms(row.scrapeHold),
});

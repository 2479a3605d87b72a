/**
 * A rolling restart under load (issue 39 item 18): three APIs sharing PostgreSQL, Redis and a
 * bucket; dispatchers claim and report jobs and readers poll, every one of them on keep-alive
 * sockets; each API in turn gets SIGTERM, drains and exits, and is started again before the
 * next one stops. The clients pick APIs the way a balancer with health checks does, by
 * /readyz. Judged: no reset connection, no 5xx but fast 503s, no claim lost or
 * answered twice, the store agreeing with Redis.
 */
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { findPostgresBinaries, startManagedPostgres } from '../src/db/managed-postgres.js';
import { runQueueKeys } from '../src/queue/queue-keys.js';
import { redisOptionsFromUrl, startManagedRedis } from '../src/redis/managed-redis.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { printFigures } from './lib/chaos-service.js';
import { judge, skipped, type ScenarioResult } from './lib/scenario-result.js';
import { ingestAndLaunch, SERVICE_TOKEN, startThreeProcesses, type ThreeProcesses } from './lib/three-processes.js';

const SIZE = { jobs: 8000, dispatchers: 16, readers: 6 };
/** While the restarts run, each dispatcher pauses this long between jobs (ms), so the load lasts through all three. */
const PACE_MS = 100;
/** How often the balancer's view reads each API's /readyz (ms). */
const READY_POLL_MS = 250;
/** A 503 slower than this (ms) is not a fast refusal. */
const FAST_MS = 1000;
const PREFIX = 'chaos-rolling';
const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

type Outcome =
  | { kind: 'answer'; status: number; body: unknown; ms: number; closes: boolean }
  | { kind: 'refused' }
  | { kind: 'reset'; code: string; origin: string; reused: boolean };

/** One request on a keep-alive socket of `agent`: its answer, a refused connection (nothing was sent), or a reset (something may have been). */
function send(agent: Agent, origin: string, method: string, path: string, token?: string, body?: unknown): Promise<Outcome> {
  const began = performance.now();
  const url = new URL(path, origin);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const outgoing = request(url, {
      method,
      agent,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      timeout: 15_000,
    }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'reset', code: error.code ?? error.message, origin, reused: outgoing.reusedSocket }));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // not JSON: kept as text
        }
        resolve({ kind: 'answer', status: incoming.statusCode ?? 0, body: parsed, ms: performance.now() - began, closes: incoming.headers.connection === 'close' });
      });
    });
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })));
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'reset', code: error.code ?? error.message, origin, reused: outgoing.reusedSocket }));
    outgoing.end(payload);
  });
}

export default async function rollingRestart(): Promise<ScenarioResult> {
  if (!findPostgresBinaries()) return skipped('no PostgreSQL server binaries (initdb, postgres) on this machine');
  const dir = mkdtempSync(join(tmpdir(), 'evb-chaos-rolling-'));
  const pgDir = mkdtempSync(join(tmpdir(), 'evb-pg-'));
  const postgres = await startManagedPostgres({ dir: pgDir });
  const redis = await startManagedRedis({ dir: join(dir, 'redis'), persistent: false });
  const s3 = await startTestS3();
  try {
    const engines = { databaseUrl: await postgres.createDatabase('rolling'), redisUrl: redis.url, blobEnv: s3.env('rolling') };
    const deployment = await startThreeProcesses(engines, PREFIX);
    try {
      const figures = await restartUnderLoad(deployment, engines);
      printFigures(figures);
      return judge(
        {
          resets: figures['reset connections'],
          '5xx beyond fast 503s': figures['5xx beyond fast 503s'],
          'fast 503s': figures['fast 503s'],
          'double claims': figures['double claims'],
          'claims lost': figures['claims cut off (failed by the lease)'],
        },
        {
          'no reset connection': figures['reset connections'] === 0,
          'no 5xx beyond fast 503s': figures['5xx beyond fast 503s'] === 0,
          'no job claimed twice': figures['double claims'] === 0,
          'no claim lost': figures['claims cut off (failed by the lease)'] === 0 && figures['jobs never claimed'] === 0,
          'every job terminal': figures['jobs not terminal'] === 0,
          'the store agrees with Redis': figures['store/Redis disagreements'] === 0,
          'the load lasted through every restart': figures['jobs left when the restarts ended'] > 0,
          'answers after a drain began closed their connection': figures['answers with Connection: close'] > 0,
        },
      );
    } finally {
      await deployment.close();
    }
  } finally {
    await s3.close();
    await redis.stop();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}

async function restartUnderLoad(deployment: ThreeProcesses, engines: { databaseUrl: string; redisUrl: string }) {
  const { ids } = await ingestAndLaunch(deployment, SIZE.jobs);
  const origins = deployment.apis.map((api) => api.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts = { resets: 0, refused: 0, fast503: 0, slow5xx: 0, closes: 0, answers: 0, reads: 0 };
  const resetCodes = new Map<string, number>();
  /** When each API now stopping got its SIGTERM (performance.now()), by origin. */
  const stopping = new Map<string, number>();
  const answered = new Map<string, number>();
  let restarting = true;
  /** Tallies one outcome; true when it is an answer below 500 the caller can use. */
  const tally = (outcome: Outcome): outcome is Extract<Outcome, { kind: 'answer' }> => {
    if (outcome.kind === 'refused') counts.refused++;
    else if (outcome.kind === 'reset') {
      counts.resets++;
      // Where in a stop it happened says which race it is: a new connection as the port
      // closed (1.5 s in), or a keep-alive socket as the drain closed the idle ones (3 s in).
      const stop = stopping.get(outcome.origin);
      const when = stop === undefined ? 'outside a stop' : `${Math.round(performance.now() - stop)} ms into its stop`;
      const key = `${outcome.code} on a ${outcome.reused ? 'reused keep-alive socket' : 'new connection'} ${when}`;
      resetCodes.set(key, (resetCodes.get(key) ?? 0) + 1);
    } else {
      counts.answers++;
      if (outcome.closes) counts.closes++;
      if (outcome.status === 503 && outcome.ms <= FAST_MS) counts.fast503++;
      else if (outcome.status >= 500) counts.slow5xx++;
      return outcome.status < 500;
    }
    return false;
  };
  /** Sends until an answer below 500, moving to the next API after a refusal, a reset or a 503. */
  // The rotation a balancer keeps: an API whose /readyz does not answer 200 leaves it within
  // READY_POLL_MS, and comes back once it does. A client that ignores /readyz keeps
  // connecting to a stopping API until its port closes, and can meet the kernel's reset of
  // a connection queued but not yet accepted at that instant (0 to 2 per three restarts in
  // our runs).
  const ready = new Set(origins);
  let polling = true;
  const probes = new Agent({ keepAlive: false });
  const poller = (async () => {
    while (polling) {
      await Promise.all(origins.map(async (origin) => {
        const outcome = await send(probes, origin, 'GET', '/readyz');
        if (outcome.kind === 'answer' && outcome.status === 200) ready.add(origin);
        else ready.delete(origin);
      }));
      await sleep(READY_POLL_MS);
    }
  })();
  const rotation = () => (ready.size > 0 ? origins.filter((origin) => ready.has(origin)) : origins);
  const persist = async (first: number, attempt: (origin: string) => Promise<Outcome>) => {
    for (let i = first; ; i++) {
      const choices = rotation();
      const outcome = await attempt(choices[i % choices.length]!);
      if (tally(outcome)) return outcome;
      await sleep(20);
    }
  };

  const dispatcher = async (n: number) => {
    for (;;) {
      const claim = await persist(n, (origin) => send(agent, origin, 'POST', '/jobs/next', SERVICE_TOKEN));
      if (claim.status === 204) return;
      if (claim.status !== 200) throw new Error(`claim answered ${claim.status}: ${JSON.stringify(claim.body)}`);
      const { jobId, jobToken } = claim.body as { jobId: string; jobToken: string };
      answered.set(jobId, (answered.get(jobId) ?? 0) + 1);
      const report = await persist(n + 1, (origin) => send(agent, origin, 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'failed', detail: 'rolling restart' }));
      if (report.status !== 204 && report.status !== 409) throw new Error(`report answered ${report.status}: ${JSON.stringify(report.body)}`);
      if (restarting) await sleep(PACE_MS);
    }
  };
  let reading = true;
  const reader = async (n: number) => {
    while (reading) {
      const read = await persist(n, (origin) => send(agent, origin, 'GET', '/test-cases'));
      if (read.status === 200) counts.reads++;
      await sleep(10);
    }
  };

  const load = Promise.all(Array.from({ length: SIZE.dispatchers }, (_, n) => dispatcher(n)));
  const readers = Promise.all(Array.from({ length: SIZE.readers }, (_, n) => reader(n)));
  const stops: number[] = [];
  const starts: number[] = [];
  await sleep(2000);
  for (let i = 0; i < origins.length; i++) {
    let began = Date.now();
    stopping.set(origins[i]!, performance.now());
    await deployment.stopGracefully(i);
    stopping.delete(origins[i]!);
    stops.push(Date.now() - began);
    began = Date.now();
    await deployment.restart(i);
    starts.push(Date.now() - began);
    await sleep(2000);
  }
  restarting = false;
  const leftAfterRestarts = ids.length - answered.size;
  await load;
  reading = false;
  await readers;
  polling = false;
  await poller;
  probes.destroy();
  agent.destroy();

  // A claim whose answer was lost would sit dispatched until the lease fails it: wait for that.
  const store = new pg.Client({ connectionString: engines.databaseUrl });
  await store.connect();
  const redis = new Redis({ ...redisOptionsFromUrl(engines.redisUrl), lazyConnect: true });
  redis.on('error', () => {});
  await redis.connect();
  const stateOf = async () => new Map((await store.query<{ id: string; state: string }>('SELECT id, state FROM jobs WHERE id = ANY($1)', [ids])).rows.map((row) => [row.id, row.state]));
  let states = await stateOf();
  for (const deadline = Date.now() + 60_000; [...states.values()].some((state) => !TERMINAL.has(state)) && Date.now() < deadline;) {
    await sleep(500);
    states = await stateOf();
  }
  const keys = runQueueKeys(PREFIX);
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hget(keys.run(id), 'state');
  const inRedis = ((await pipeline.exec()) ?? []).map(([, state]) => state as string | null);
  redis.disconnect();
  await store.end();
  return {
    'jobs enqueued': ids.length,
    dispatchers: SIZE.dispatchers,
    'keep-alive readers': SIZE.readers,
    'graceful stop of each API (SIGTERM to exit, ms)': stops.join(' / '),
    'start of each API again (ms)': starts.join(' / '),
    'jobs left when the restarts ended': leftAfterRestarts,
    'claims answered': answered.size,
    'reads answered': counts.reads,
    'answers in all': counts.answers,
    'answers with Connection: close': counts.closes,
    'refused connections (nothing sent, tried elsewhere)': counts.refused,
    'reset connections': counts.resets,
    'resets': [...resetCodes].map(([code, count]) => `${count}x ${code}`).join('; ') || 'none',
    'fast 503s': counts.fast503,
    '5xx beyond fast 503s': counts.slow5xx,
    'double claims': [...answered.values()].filter((count) => count > 1).length,
    'claims cut off (failed by the lease)': ids.filter((id) => !answered.has(id) && states.get(id) === 'failed').length,
    'jobs never claimed': ids.filter((id) => !answered.has(id) && states.get(id) !== 'failed').length,
    'jobs not terminal': ids.filter((id) => !TERMINAL.has(states.get(id) ?? '')).length,
    'store/Redis disagreements': ids.filter((id, i) => inRedis[i] !== states.get(id)).length,
  };
}

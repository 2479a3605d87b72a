import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { runQueueKeys } from '../../src/queue/queue-keys.js';
import { freeLoopbackPort, redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { forkDyingWithParent } from '../../src/runtime/dies-with-parent.js';
import { startNodeChild } from '../../src/runtime/node-child.js';
import type { RunningChild } from '../../src/runtime/supervised-child.js';
import { runRecord } from '../../test/helpers/run-record-builder.js';
import { repoRoot } from '../../bench/lib/repo-root.js';
import { call, type Answer } from './json-call.js';

/**
 * Several machines proved on one (issue 33): three API processes and one worker, each with a
 * DATA_DIR of its own, sharing nothing but PostgreSQL, Redis and a bucket. The vitest test
 * (test/scale/three-processes.test.ts) runs it small on the test run's engines, the chaos
 * scenario full size on engines of its own.
 */

/** What the processes share; the bucket as the `s3` driver's environment (BLOB_STORE_URL, AWS_*). */
export interface SharedEngines {
  databaseUrl: string;
  redisUrl: string;
  blobEnv: Record<string, string>;
}

export interface ApiProcess {
  url: string;
  pid: number;
}

export interface ThreeProcesses {
  apis: ApiProcess[];
  authUrl: string;
  /** Settles when the worker exits: early, it failed to start (it says why on standard error). Never, with no worker. */
  workerExit: Promise<void>;
  /** kill -9 of one API process; answers once it is gone. */
  kill(index: number): Promise<void>;
  /** Starts that API process again on its port and DATA_DIR; answers once it serves. */
  restart(index: number): Promise<void>;
  /** SIGTERM to one API process (it drains, then stops); answers once it has exited, or was killed after 15 s. */
  stopGracefully(index: number): Promise<void>;
  /**
   * SIGSTOP (`true`) or SIGCONT (`false`) to every process of the layout: a paused layout
   * takes no CPU, so a bench can time several layouts in turns on one machine.
   */
  pause(paused: boolean): void;
  close(): Promise<void>;
}

export interface LayoutOptions {
  /** API processes (default 3). */
  apis?: number;
  /** Whether a worker runs ingest, publish, snapshot and the stale-job sweep beside them (default true). */
  worker?: boolean;
  /** Variables one API process gets on top of the shared ones, by its index (a Redis URL through a proxy, say). */
  apiEnv?: Record<number, Record<string, string>>;
}

export const SERVICE_TOKEN = 'three-processes-service-token';
const SLUG = 'skiff-race';
const VERSION = 'v1.1.0';
export const LAUNCH = { testCase: SLUG, version: VERSION, variant: 'base', harness: 'codex', model: 'three/model' };
/** A claim whose answer the kill cut off is failed by the dispatch lease this soon (s). */
const LEASE_SECONDS = 4;

const entry = (path: string) => join(repoRoot(), 'dist', 'src', path);

/**
 * Starts the auth service, three API processes (ingest's catalog checkout beside the first)
 * and one worker running ingest, publish, snapshot and the stale-job sweep, all on `engines`;
 * `options` changes the number of API processes, or leaves the worker out.
 */
export async function startThreeProcesses(engines: SharedEngines, prefix: string, { apis: apiCount = 3, worker: withWorker = true, apiEnv = {} }: LayoutOptions = {}): Promise<ThreeProcesses> {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'evb-three-'));
    dirs.push(dir);
    return dir;
  };
  const children: RunningChild[] = [];
  const base = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    LOG_LEVEL: 'error',
  };
  // The kernel kills every process of the layout when the test or bench that started it dies:
  // SIGKILL, since a bench keeps layouts paused (SIGSTOP), and a paused process acts on no other.
  const dying = { parentDeathSignal: 'KILL' } as const;
  const authPort = await freeLoopbackPort();
  const auth = await startNodeChild(entry('auth/server.js'), { label: 'the auth service', env: { ...base, AUTH_PORT: String(authPort), DATA_DIR: dataDir() }, ...dying });
  children.push(auth);
  const authUrl = `http://127.0.0.1:${authPort}`;
  const catalog = join(repoRoot(), 'examples', 'catalog');
  const shared = {
    ...base,
    ...engines.blobEnv,
    DATABASE_URL: engines.databaseUrl,
    REDIS_URL: engines.redisUrl,
    REDIS_PREFIX: prefix,
    AUTH_URL: authUrl,
    SERVICE_TOKEN,
    REAP_ORPHANED_JOBS: 'false',
    DISPATCH_LEASE_SECONDS: String(LEASE_SECONDS),
    SNAPSHOT_URL: 'http://127.0.0.1/snapshot/',
    // No network here: the routing provider answers "refused" at once.
    ROUTER_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}`,
  };
  const apiEnvs = await Promise.all(
    Array.from({ length: apiCount }, async (_, i) => ({
      ...shared,
      HOST: '127.0.0.1',
      PORT: String(await freeLoopbackPort()),
      DATA_DIR: dataDir(),
      RUN_WORKERS: 'false',
      ...(i === 0 ? { CATALOG_DIR: catalog } : {}),
      ...apiEnv[i],
    })),
  );
  const running: Array<RunningChild & { url: string }> = [];
  const startApi = (i: number) => startNodeChild(entry('api/server.js'), { label: `API process ${i}`, env: apiEnvs[i]!, readyTimeoutMs: 60_000, ...dying });
  // One after another: the first migrates the store under its advisory lock.
  for (let i = 0; i < apiCount; i++) running.push(await startApi(i));
  const worker = withWorker
    ? fork(entry('worker.js'), [], {
      env: { ...shared, DATA_DIR: dataDir(), CATALOG_DIR: catalog, WORKER_QUEUES: 'ingest,publish,snapshot,stale-jobs' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...forkDyingWithParent(dying.parentDeathSignal),
    })
    : null;
  const workerExited = worker ? new Promise<void>((done) => worker.once('exit', () => done())) : new Promise<void>(() => {});
  const apis: ApiProcess[] = running.map(({ url, pid }) => ({ url, pid }));
  const pause = (paused: boolean) => {
    for (const pid of [auth.pid, ...running.map((api) => api.pid), ...(worker?.pid ? [worker.pid] : [])]) process.kill(pid, paused ? 'SIGSTOP' : 'SIGCONT');
  };
  return {
    apis,
    authUrl,
    workerExit: workerExited,
    async kill(index) {
      process.kill(running[index]!.pid, 'SIGKILL');
      await running[index]!.exited;
    },
    stopGracefully: (index) => running[index]!.stop(),
    async restart(index) {
      running[index] = await startApi(index);
      apis[index] = { url: running[index]!.url, pid: running[index]!.pid };
    },
    pause,
    async close() {
      // A paused process would hold a SIGTERM until its stop grace ran out.
      pause(false);
      if (worker && worker.exitCode === null && worker.signalCode === null) {
        worker.kill('SIGTERM');
        await workerExited;
      }
      await Promise.all([...running, ...children].map((child) => child.stop()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ProofSize {
  jobs: number;
  dispatchers: number;
  /** The second API process is killed once this many claims were answered. */
  killAfterClaims: number;
}

/** A type, not an interface: it is printed as a record of figures. */
export type ProofFigures = {
  'jobs enqueued': number;
  dispatchers: number;
  'claims answered': number;
  'claims per second': number;
  'claims answered by each API': string;
  'double claims': number;
  'jobs lost': number;
  'jobs not terminal': number;
  'claims cut off by the kill (failed by the lease)': number;
  'store/Redis disagreements': number;
  '5xx answers': number;
  'heal (kill to first answer of the restarted API)': string;
  'versions resolved by the other APIs': boolean;
  'reference PNG served by the other APIs': boolean;
  'showcase served by another API and in the snapshot': boolean;
};

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

/**
 * The proof: ingest through the first API, read the version and a reference PNG through the
 * other two; dispatchers spread over the three claim every job and report it failed through
 * another process while the second is killed and restarted; then every job is terminal,
 * claimed at most once, and the store agrees with Redis; and a showcase uploaded through one
 * process is served by another and reaches the snapshot.
 */
export async function proveThreeProcesses(deployment: ThreeProcesses, engines: SharedEngines, prefix: string, size: ProofSize): Promise<ProofFigures> {
  const { apis } = deployment;
  const { operator, ids, resolved, pngBytes } = await ingestAndLaunch(deployment, size.jobs);

  const answered = new Map<string, number>();
  const byApi = Array.from({ length: apis.length }, () => 0);
  let serverErrors = 0;
  let killedAt = 0;
  let healedAt = 0;
  const victimRestart: { done: Promise<void> | null; back: boolean } = { done: null, back: false };
  const victim = 1;
  const began = Date.now();
  /** Sends until an answer other than a refused connection or a 5xx, moving to the next process when one is down. */
  const persist = async (first: number, send: (origin: string) => Promise<Answer>): Promise<Answer> => {
    for (let attempt = first; ; attempt++) {
      const answer = await send(apis[attempt % apis.length]!.url);
      if (answer.status !== 0 && answer.status < 500) return answer;
      if (answer.status >= 500) serverErrors++;
      await sleep(50);
    }
  };
  const dispatcher = async (n: number) => {
    const home = n % apis.length;
    for (;;) {
      const claim = await call(apis[home]!.url, 'POST', '/jobs/next', SERVICE_TOKEN, undefined, 10_000);
      if (home === victim && victimRestart.back && !healedAt && (claim.status === 200 || claim.status === 204)) healedAt = Date.now();
      if (claim.status === 204) return;
      if (claim.status === 0 || claim.status >= 500) {
        if (claim.status >= 500) serverErrors++;
        await sleep(50);
        continue;
      }
      if (claim.status !== 200) throw new Error(`claim answered ${claim.status}: ${JSON.stringify(claim.body)}`);
      const { jobId, jobToken } = claim.body as { jobId: string; jobToken: string };
      answered.set(jobId, (answered.get(jobId) ?? 0) + 1);
      byApi[home]! += 1;
      if (!killedAt && answered.size >= size.killAfterClaims) {
        killedAt = Date.now();
        victimRestart.done = deployment.kill(victim).then(() => deployment.restart(victim)).then(() => void (victimRestart.back = true));
      }
      // The driver reports through another process than the one that answered its claim.
      const report = await persist(home + 1, (origin) => call(origin, 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'failed', detail: 'three-process proof' }));
      // 409: the lease failed it first (its report came later than the lease under this load).
      if (report.status !== 204 && report.status !== 409) throw new Error(`report answered ${report.status}: ${JSON.stringify(report.body)}`);
    }
  };
  await Promise.all(Array.from({ length: size.dispatchers }, (_, n) => dispatcher(n)));
  const stormSeconds = (Date.now() - began) / 1000;
  await victimRestart.done;

  // Claims the kill cut off have no driver: the lease fails them within a few seconds.
  const store = new pg.Client({ connectionString: engines.databaseUrl });
  await store.connect();
  const redis = new Redis({ ...redisOptionsFromUrl(engines.redisUrl), lazyConnect: true });
  redis.on('error', () => {});
  await redis.connect();
  const keys = runQueueKeys(prefix);
  const stateOf = async () => new Map((await store.query<{ id: string; state: string }>('SELECT id, state FROM jobs WHERE id = ANY($1)', [ids])).rows.map((row) => [row.id, row.state]));
  let states = await stateOf();
  for (const deadline = Date.now() + (4 * LEASE_SECONDS + 30) * 1000; [...states.values()].some((state) => !TERMINAL.has(state)) && Date.now() < deadline;) {
    await sleep(500);
    states = await stateOf();
  }
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hget(keys.run(id), 'state');
  const inRedis = ((await pipeline.exec()) ?? []).map(([, state]) => state as string | null);
  const mismatched = ids.filter((id, i) => inRedis[i] !== states.get(id)).length;
  const lost = ids.filter((id) => !states.has(id) || states.get(id) === 'queued' || states.get(id) === 'pending').length;
  const notTerminal = ids.filter((id) => !TERMINAL.has(states.get(id) ?? '')).length;
  const cutOff = ids.filter((id) => !answered.has(id)).length;

  const showcase = await showcaseAcrossProcesses(apis.map((api) => api.url), operator);
  redis.disconnect();
  await store.end();
  return {
    'jobs enqueued': ids.length,
    dispatchers: size.dispatchers,
    'claims answered': answered.size,
    'claims per second': Math.round(answered.size / stormSeconds),
    'claims answered by each API': byApi.join(' / '),
    'double claims': [...answered.values()].filter((count) => count > 1).length,
    'jobs lost': lost,
    'jobs not terminal': notTerminal,
    'claims cut off by the kill (failed by the lease)': cutOff,
    'store/Redis disagreements': mismatched,
    '5xx answers': serverErrors,
    'heal (kill to first answer of the restarted API)': healedAt ? `${((healedAt - killedAt) / 1000).toFixed(2)} s` : 'not seen',
    'versions resolved by the other APIs': resolved.every((answer) => answer.status === 200 && answer.body.version === VERSION),
    'reference PNG served by the other APIs': pngBytes.every((bytes) => bytes !== null && bytes.subarray(0, 8).equals(PNG.subarray(0, 8))) && pngBytes[0]!.equals(pngBytes[1]!),
    'showcase served by another API and in the snapshot': showcase,
  };
}

/**
 * Registers an operator, ingests the test case through the first process (its worker does
 * the work), reads the version and a reference PNG through the others, and adds the launch's
 * model: what every proof on this layout starts from.
 */
export async function ingestAcrossProcesses(deployment: ThreeProcesses): Promise<{ operator: string; resolved: Answer[]; pngBytes: Array<Buffer | null> }> {
  const { apis } = deployment;
  const registered = await call(deployment.authUrl, 'POST', '/auth/register', undefined, { username: 'three', password: 'three-password', displayName: 'Three' });
  const operator = registered.body.token as string;
  const ingest = await Promise.race([
    call(apis[0]!.url, 'POST', '/ingest', undefined, { testCases: [SLUG] }, 300_000),
    deployment.workerExit.then(() => Promise.reject(new Error('the worker exited before the ingest ended'))),
  ]);
  if (ingest.status !== 200 || ingest.body.failed !== 0) throw new Error(`ingest failed: ${ingest.status} ${JSON.stringify(ingest.body)}`);
  const resolved = await Promise.all(apis.slice(1).map((api) => call(api.url, 'GET', `/test-cases/${SLUG}/versions/${VERSION}`)));
  const pngs = await Promise.all(apis.slice(1).map((api) => fetch(`${api.url}/test-cases/${SLUG}/versions/${VERSION}/references/base/title.png`)));
  const pngBytes = await Promise.all(pngs.map(async (png) => (png.status === 200 ? Buffer.from(await png.arrayBuffer()) : null)));
  const model = await call(apis[1]!.url, 'POST', '/models', operator, {
    slug: LAUNCH.model, listPriceInputPerMtok: 1, listPriceCachedInputPerMtok: 0.1, listPriceOutputPerMtok: 2, listPriceAsOf: '2026-11-01',
  });
  if (model.status !== 201) throw new Error(`model not created: ${model.status} ${JSON.stringify(model.body)}`);

  return { operator, resolved, pngBytes };
}

/** Launches `count` jobs of LAUNCH through `origin` in batches of 200; answers their ids in launch order. */
export async function launchJobs(origin: string, operator: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = await call(origin, 'POST', '/jobs/batch', operator, { runs: Array.from({ length: Math.min(200, count - i) }, () => LAUNCH) });
    if (batch.status !== 200) throw new Error(`batch refused: ${batch.status} ${JSON.stringify(batch.body)}`);
    for (const job of batch.body.jobs as Array<{ jobId?: string }>) {
      if (!job.jobId) throw new Error(`launch refused: ${JSON.stringify(job)}`);
      ids.push(job.jobId);
    }
  }
  return ids;
}

/** ingestAcrossProcesses, then `jobs` launches through the first API. */
export async function ingestAndLaunch(deployment: ThreeProcesses, jobs: number) {
  const ingested = await ingestAcrossProcesses(deployment);
  return { ...ingested, ids: await launchJobs(deployment.apis[0]!.url, ingested.operator, jobs) };
}

/** A showcase uploaded through the third process, served by the second, published through the first, in the snapshot the second serves. */
async function showcaseAcrossProcesses([first, second, third]: string[], operator: string): Promise<boolean> {
  const runId = 'three-process-showcase';
  await call(first!, 'POST', '/jobs', operator, LAUNCH);
  const claim = await call(third!, 'POST', '/jobs/next', SERVICE_TOKEN);
  if (claim.status !== 200) return false;
  const { jobId, jobToken } = claim.body as { jobId: string; jobToken: string };
  await call(third!, 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'running' });
  const upload = await fetch(`${third}/runs/${runId}/showcase/title.png`, { method: 'PUT', body: PNG, headers: { authorization: `Bearer ${jobToken}`, 'x-svc-job-id': jobId } });
  const served = await fetch(`${second}/runs/${runId}/showcase/title.png`);
  const servedBytes = Buffer.from(await served.arrayBuffer());
  const record = runRecord({ id: runId, slug: LAUNCH.testCase, version: LAUNCH.version, variant: LAUNCH.variant, harness: LAUNCH.harness, model: LAUNCH.model, state: 'hung' });
  const finished = await call(first!, 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'failed', record });
  const publish = await call(first!, 'POST', `/runs/${runId}/publish`, operator);
  if (upload.status !== 201 || !servedBytes.equals(PNG) || finished.status !== 204 || publish.status !== 202) return false;
  for (const deadline = Date.now() + 30_000; (await call(second!, 'GET', `/runs/${runId}`)).body?.published !== true;) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  if ((await call(second!, 'POST', '/snapshot/refresh')).status !== 200) return false;
  const detail = await call(third!, 'GET', `/snapshot/runs/${runId}.json`);
  const media = await fetch(`${third}/snapshot/media/${runId}/showcase/title.png`);
  return detail.status === 200 && JSON.stringify(detail.body.showcase) === JSON.stringify([{ file: 'title.png', kind: 'image', key: `media/${runId}/showcase/title.png` }]) &&
    Buffer.from(await media.arrayBuffer()).equals(PNG);
}

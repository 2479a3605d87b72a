/**
 * One API cut from Redis (issue 39 item 16): three API processes and a worker share
 * PostgreSQL, Redis and a bucket; the third reaches Redis through a TCP proxy that, mid
 * claim storm, stops passing bytes either way without closing anything (a network
 * partition: what is sent is held, as TCP retransmits it, and arrives when the link heals).
 * Claims against the cut-off API must answer 503 within 5 s; after the heal, no claim that
 * was answered 503 may have claimed a job (a job dispatched to nobody); none lost, none
 * claimed twice, and the store agrees with Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { findPostgresBinaries, startManagedPostgres } from '../src/db/managed-postgres.js';
import { runQueueKeys } from '../src/queue/queue-keys.js';
import { redisOptionsFromUrl, startManagedRedis } from '../src/redis/managed-redis.js';
import { startRedisFaultProxy } from '../test/helpers/redis-fault-proxy.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { printFigures } from './lib/chaos-service.js';
import { call } from './lib/json-call.js';
import { judge, skipped, type ScenarioResult } from './lib/scenario-result.js';
import { ingestAcrossProcesses, launchJobs, SERVICE_TOKEN, startThreeProcesses } from './lib/three-processes.js';

const JOBS = 3000;
const DISPATCHERS = 12;
/** The partition starts once this many claims were answered, and lasts this long (ms). */
const PARTITION_AFTER_CLAIMS = 600;
const PARTITION_MS = 12_000;
/** The API cut off, by index. */
const CUT = 2;
/** What the docs promise a claim against an unreachable Redis (ms), with 0.5 s for a loaded machine. */
const PROMISED_MS = 5000;
const SLACK_MS = 500;
const PREFIX = 'chaos-partition';
const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

export default async function apiRedisPartition(): Promise<ScenarioResult> {
  if (!findPostgresBinaries()) return skipped('no PostgreSQL server binaries (initdb, postgres) on this machine');
  const dir = mkdtempSync(join(tmpdir(), 'evb-chaos-partition-'));
  const pgDir = mkdtempSync(join(tmpdir(), 'evb-pg-'));
  const postgres = await startManagedPostgres({ dir: pgDir });
  const redis = await startManagedRedis({ dir: join(dir, 'redis'), persistent: false });
  const proxy = await startRedisFaultProxy(redis.url);
  const s3 = await startTestS3();
  try {
    const engines = { databaseUrl: await postgres.createDatabase('partition'), redisUrl: redis.url, blobEnv: s3.env('partition') };
    const deployment = await startThreeProcesses(engines, PREFIX, { apiEnv: { [CUT]: { REDIS_URL: proxy.url } } });
    try {
      const { apis } = deployment;
      const { operator } = await ingestAcrossProcesses(deployment);
      const ids = await launchJobs(apis[0]!.url, operator, JOBS);

      const answered = new Map<string, number>();
      let partitionedAt = 0;
      let healedAt = 0;
      let cutClaims = 0;
      let cut503 = 0;
      let slowestCutMs = 0;
      let otherServerErrors = 0;
      let firstAnswerAfterHeal = 0;
      const partition = async () => {
        partitionedAt = Date.now();
        proxy.partition();
        await sleep(PARTITION_MS);
        jobsLeftAtHeal = JOBS - answered.size;
        proxy.heal();
        healedAt = Date.now();
      };
      let partitionDone: Promise<void> | null = null;
      let jobsLeftAtHeal = 0;
      /** Reports through an API that was never cut off, until it answers. */
      const report = async (jobId: string, jobToken: string) => {
        for (let attempt = 0; ; attempt++) {
          const answer = await call(apis[attempt % 2]!.url, 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'failed', detail: 'partition proof' });
          if (answer.status === 204 || answer.status === 409) return;
          if (answer.status >= 500) otherServerErrors++;
          await sleep(50);
        }
      };
      const dispatcher = async (n: number) => {
        const home = n % apis.length;
        for (;;) {
          // The other APIs' dispatchers wait out the partition, so jobs are left when it heals
          // for any claim script held in the cut-off connection to take.
          while (home !== CUT && partitionedAt && !healedAt) await sleep(100);
          const startedAt = Date.now();
          const claim = await call(apis[home]!.url, 'POST', '/jobs/next', SERVICE_TOKEN, undefined, 30_000);
          const endedAt = Date.now();
          if (home === CUT && partitionedAt && endedAt > partitionedAt && (!healedAt || startedAt < healedAt)) {
            // Any claim the partition held, whatever it answered, answers in time.
            slowestCutMs = Math.max(slowestCutMs, claim.ms);
            // One sent and answered while the link was down can only fail.
            if (startedAt >= partitionedAt && !healedAt) {
              cutClaims++;
              if (claim.status === 503) cut503++;
            }
          } else if (home === CUT && healedAt && !firstAnswerAfterHeal && (claim.status === 200 || claim.status === 204)) {
            firstAnswerAfterHeal = Date.now();
          }
          if (claim.status === 204) {
            // The cut-off API answers nothing claimable only once it hears Redis again.
            if (home !== CUT || healedAt) return;
            await sleep(100);
            continue;
          }
          if (claim.status !== 200) {
            if (claim.status !== 503 || home !== CUT) otherServerErrors += claim.status >= 500 || claim.status === 0 ? 1 : 0;
            await sleep(100);
            continue;
          }
          const { jobId, jobToken } = claim.body as { jobId: string; jobToken: string };
          answered.set(jobId, (answered.get(jobId) ?? 0) + 1);
          if (!partitionDone && answered.size >= PARTITION_AFTER_CLAIMS) partitionDone = partition();
          await report(jobId, jobToken);
        }
      };
      await Promise.all(Array.from({ length: DISPATCHERS }, (_, n) => dispatcher(n)));
      await partitionDone;

      // A job claimed by a script that ran after its API had answered 503 has no dispatcher:
      // the dispatch lease (4 s here) would fail it. Wait for the lease, then look.
      await sleep(10_000);
      const store = new pg.Client({ connectionString: engines.databaseUrl });
      await store.connect();
      const reader = new Redis({ ...redisOptionsFromUrl(engines.redisUrl), lazyConnect: true });
      reader.on('error', () => {});
      await reader.connect();
      const keys = runQueueKeys(PREFIX);
      const rows = await store.query<{ id: string; state: string; detail: string | null }>('SELECT id, state, detail FROM jobs WHERE id = ANY($1)', [ids]);
      const states = new Map(rows.rows.map((row) => [row.id, row]));
      const pipeline = reader.pipeline();
      for (const id of ids) pipeline.hget(keys.run(id), 'state');
      const inRedis = ((await pipeline.exec()) ?? []).map(([, state]) => state as string | null);
      reader.disconnect();
      await store.end();

      const lost = ids.filter((id) => ['queued', 'pending', undefined].includes(states.get(id)?.state)).length;
      const forNobody = ids.filter((id) => !answered.has(id) && states.get(id)?.state !== 'queued').length;
      const doubles = [...answered.values()].filter((count) => count > 1).length;
      const notTerminal = ids.filter((id) => !TERMINAL.has(states.get(id)?.state ?? '')).length;
      const mismatched = ids.filter((id, i) => inRedis[i] !== states.get(id)?.state).length;
      const heal = firstAnswerAfterHeal ? `${((firstAnswerAfterHeal - healedAt) / 1000).toFixed(2)} s` : 'not seen';
      printFigures({
        'jobs enqueued': JOBS,
        dispatchers: DISPATCHERS,
        'partition (s)': PARTITION_MS / 1000,
        'claims answered': answered.size,
        'claims against the cut-off API during the partition': cutClaims,
        'of them 503': cut503,
        'slowest of them': `${(slowestCutMs / 1000).toFixed(2)} s`,
        'jobs not yet claimed when the partition healed': jobsLeftAtHeal,
        'jobs claimed for nobody (a 503 claim that ran later)': forNobody,
        'double claims': doubles,
        'jobs lost': lost,
        'jobs not terminal': notTerminal,
        'store/Redis disagreements': mismatched,
        'other 5xx or failed answers': otherServerErrors,
        'heal to the cut-off API\'s first answer': heal,
      });
      return judge(
        { 'slowest 503': `${(slowestCutMs / 1000).toFixed(2)} s`, 'for nobody': forNobody, 'claimed twice': doubles, lost, 'not terminal': notTerminal },
        {
          'claims reached the cut-off API during the partition': cutClaims > 0,
          'jobs were left to claim when it healed': jobsLeftAtHeal > 0,
          'every one of them answered 503': cut503 === cutClaims,
          [`each within ${PROMISED_MS / 1000} s`]: slowestCutMs <= PROMISED_MS + SLACK_MS,
          'no job claimed for nobody': forNobody === 0,
          'no job claimed twice': doubles === 0,
          'no job lost': lost === 0,
          'every job terminal': notTerminal === 0,
          'the store agrees with Redis': mismatched === 0,
          'no other 5xx answer': otherServerErrors === 0,
          'the cut-off API answered after the heal': heal !== 'not seen',
        },
      );
    } finally {
      await deployment.close();
    }
  } finally {
    await s3.close();
    await proxy.close();
    await redis.stop();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}

/**
 * The claim on a PostgreSQL store (issue 32): one dispatcher's `POST /jobs/next` on an app
 * over PostgreSQL and one over SQLite, timed in the same rounds as a no-op POST, and 100,000
 * jobs claimed from the PostgreSQL app by 32 dispatchers, counted by job id from the answers,
 * from Redis (each job's run state) and from the store (its dispatched rows).
 */
import { sql } from 'kysely';
import { benchPostgres } from './lib/bench-store.js';
import { SERVICE_TOKEN, startClaimApp, type ClaimApp } from './lib/claim-app.js';
import { runDispatchers } from './lib/run-worker.js';
import { ms, printTable, type LatencySummary } from './lib/stats.js';
import { timeClaimsAcross } from './lib/time-claims.js';
import { tallyClaims, tallyRow } from './lib/tally-claims.js';

const LATENCY_CLAIMS = 5000;
const WARMUP = 2000;
const CORRECTNESS_JOBS = 100_000;
/** PostgreSQL's claim p50 may be at most this many times SQLite's, timed in the same rounds. */
const TARGET_RATIO = 1.1;

export type ClaimCheck = Record<'target' | 'measured' | 'result', string>;

export async function benchClaimOnPostgres(redisUrl: string, noopUrl: string): Promise<ClaimCheck[]> {
  const cluster = await benchPostgres();
  const apps: ClaimApp[] = [];
  try {
    const sqlite = await startClaimApp(redisUrl);
    apps.push(sqlite);
    const postgres = await startClaimApp(redisUrl, { DATABASE_URL: await cluster.createDatabase('claim') });
    apps.push(postgres);
    for (const app of apps) await app.fill(LATENCY_CLAIMS + WARMUP);
    const { noopPost, claims } = await timeClaimsAcross([sqlite.url, postgres.url], noopUrl, SERVICE_TOKEN, LATENCY_CLAIMS, WARMUP);
    const [onSqlite, onPostgres] = claims as [LatencySummary, LatencySummary];
    const row = (measure: string, summary: LatencySummary) => ({ measure, p50: ms(summary.p50), p99: ms(summary.p99), samples: summary.count });
    printTable('Claim latency by store (one dispatcher, the three timed in the same rounds)', [
      row('floor: Fastify no-op POST', noopPost),
      row('POST /jobs/next, SQLite store', onSqlite),
      row('POST /jobs/next, PostgreSQL store', onPostgres),
    ]);
    const ratio = onPostgres.p50 / onSqlite.p50;

    const ids = await postgres.fill(CORRECTNESS_JOBS);
    const run = await runDispatchers(postgres.url, 32);
    const tally = tallyClaims(ids, run.claimed);
    const { doubles, lost, strangers } = tally;
    // Redis: every job's run state, as the claim script left it.
    const { keys } = postgres.app.runJobs.queue;
    const pipeline = postgres.app.jobsRedis.pipeline();
    for (const id of ids) pipeline.hget(keys.run(id), 'state');
    const states = (await pipeline.exec()) ?? [];
    const dispatchedInRedis = states.filter(([, state]) => state === 'dispatched').length;
    // The store: claim rows are written just behind their answers; count them once written.
    const written = await postgres.app.runJobs.dispatches.settled(30_000);
    const { count } = await postgres.store.db.selectFrom('jobs').where('state', '=', 'dispatched').where('token_hash', 'is not', null)
      .select(sql<number>`COUNT(*)`.as('count')).executeTakeFirstOrThrow();
    const expectedRows = LATENCY_CLAIMS + WARMUP + CORRECTNESS_JOBS;
    printTable(`Correctness on PostgreSQL: ${CORRECTNESS_JOBS.toLocaleString()} jobs claimed by 32 dispatchers`, [{
      ...tallyRow(ids, run, tally),
      'dispatched in Redis': `${dispatchedInRedis}/${ids.length}`,
      'PostgreSQL dispatched rows': `${count}/${expectedRows}`,
    }]);
    const ok = run.claimed.length === CORRECTNESS_JOBS && doubles === 0 && lost === 0 && strangers === 0 && run.errors === 0
      && dispatchedInRedis === ids.length && written && count === expectedRows;
    return [
      {
        target: `claim p50 on PostgreSQL <= ${TARGET_RATIO}x SQLite's (same rounds)`,
        measured: `${ms(onPostgres.p50)} vs ${ms(onSqlite.p50)}: ${ratio.toFixed(2)}x`,
        result: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL',
      },
      {
        target: `${CORRECTNESS_JOBS.toLocaleString()} claimed on PostgreSQL, 0 double claims, 0 lost (answers, Redis, store)`,
        measured: `${run.claimed.length} claimed, ${doubles} double, ${lost} lost; ${dispatchedInRedis} dispatched in Redis, ${count}/${expectedRows} rows`,
        result: ok ? 'PASS' : 'FAIL',
      },
    ];
  } finally {
    for (const app of apps) await app.close();
    await cluster.stop();
  }
}

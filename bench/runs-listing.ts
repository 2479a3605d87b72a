import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ManagedPostgres } from '../src/db/managed-postgres.js';
import { measureFloors } from './floors.js';
import { startBenchBackend, type BenchBackend } from './lib/bench-backend.js';
import { benchRedis } from './lib/bench-redis.js';
import { decodeRunRecord } from '../src/runs/decode-run-record.js';
import { runValues } from '../src/runs/run-rows.js';
import { benchEngines, benchPostgres, copiedToPostgres, rawHandle, rawQuery, rawStatement, type RawHandle } from './lib/bench-store.js';
import { keepAliveClient } from './lib/keep-alive-client.js';
import { machineLine } from './lib/machine.js';
import { seedRuns } from './lib/seed-runs.js';
import { ms, printTable, timePaired, type LatencySummary } from './lib/stats.js';
import { syntheticRunRecord } from './lib/synthetic-run.js';

const RUNS = 100_000;
const MODELS = 20;
const HARNESSES = ['claude', 'codex', 'cline', 'goose'];
const TARGET_RATIO = 3;
/** Run records stored at once, as a burst of drivers' final reports stores them. */
const STORED = 600;

function record(i: number) {
  return syntheticRunRecord(i, {
    testCaseSlug: `case-${i % 40}`,
    testCaseVersion: `v1.${i % 3}.0`,
    harnessSlug: HARNESSES[i % HARNESSES.length]!,
    modelId: `vendor/model-${i % MODELS}`,
  }, {
    runTimeSeconds: 100 + (i % 900),
    uncachedInput: 1000 + i,
    cost: (i % 97) / 10,
    state: i % 10 === 0 ? 'timed_out' : 'completed',
    environment: { os: 'linux', containerImage: 'runner:1', authMode: 'api-key' },
  });
}

/**
 * `GET /runs?fields=summary` at 100,000 stored runs: a filtered, sorted numbered page and a
 * cursor page over keep-alive HTTP, against the same statements run directly on the engine's
 * own driver plus the no-op HTTP floor, on each engine `--store` names (default both; the
 * PostgreSQL store is a `store copy` of the SQLite one). PASS when HTTP stays within 3x of
 * (raw query + floor).
 */
export default async function benchRunsListing(): Promise<boolean> {
  const engines = benchEngines();
  const redis = await benchRedis();
  const sqlite = await startBenchBackend(redis.url, { REDIS_PREFIX: `b${randomUUID().slice(0, 8)}`, RUN_WORKERS: 'false' });
  let cluster: ManagedPostgres | null = null;
  try {
    const seedStart = Date.now();
    await seedRuns(sqlite.store, RUNS, record);
    // Grades as a review pass would leave them; the grade key of a store with nothing ingested.
    sqlite.db.exec(`UPDATE runs SET grade = '{"rating":null,"aesthetic":null,"validatorRated":false,"score":null}', grade_key = '|',
      case_name = test_case_slug, published = (CAST(substr(id, 5) AS INTEGER) % 2), published_at = CASE WHEN CAST(substr(id, 5) AS INTEGER) % 2 = 1 THEN finished_at END`);
    sqlite.db.exec('ANALYZE');
    console.log(`seeded ${RUNS} runs in ${Date.now() - seedStart} ms`);

    const measured: Array<Record<string, string>> = [];
    const storing: Array<Record<string, string>> = [];
    // The PostgreSQL store is copied before either side is measured, so both start from the same rows.
    if (engines.includes('postgres')) cluster = await benchPostgres();
    const url = cluster ? await copiedToPostgres(cluster, sqlite.sqliteFile!, 'runs_listing') : null;
    const measure = async (backend: BenchBackend, databaseUrl: string | null) => {
      const figures = await measureListing(backend, databaseUrl, redis.url);
      measured.push(...figures.listing);
      storing.push(figures.storing);
    };
    if (engines.includes('sqlite')) await measure(sqlite, null);
    if (url) {
      const postgres = await startBenchBackend(redis.url, { REDIS_PREFIX: `b${randomUUID().slice(0, 8)}`, RUN_WORKERS: 'false', DATABASE_URL: url });
      try {
        await measure(postgres, url);
      } finally {
        await postgres.close();
      }
    }
    printTable(`GET /runs fields=summary at ${RUNS} runs (p50, sequential keep-alive; ${machineLine()})`, measured);
    printTable(`${STORED} run records stored at once into ${RUNS} runs, each regraded (${machineLine()})`, storing);
    return measured.every((row) => row.verdict === 'PASS');
  } finally {
    await sqlite.close();
    await cluster?.stop();
    await redis.stop();
  }
}

/** The listing's pages on one backend, each against its statements on the engine's own driver. */
async function measureListing(backend: BenchBackend, databaseUrl: string | null, redisUrl: string): Promise<{ listing: Array<Record<string, string>>; storing: Record<string, string> }> {
  const { app, store, url: address } = backend;
  const handle = await rawHandle(backend, databaseUrl);
  const client = keepAliveClient(address);
  try {
    // A summary request without `before` is a numbered page, so the cursor into the second
    // page comes from the listing itself.
    const secondPage = (await app.runs.listing.cursor('published', undefined, 50)).nextBefore!;
    const narrowed = { model: 'vendor/model-7', harness: 'goose' };
    const offsetPages = [
      { name: 'offset page (model+harness, sort=cost desc, total)', filters: { ...narrowed, sort: 'cost' as const, dir: 'desc' as const } },
      { name: 'offset page (model+harness, newest first, total)', filters: narrowed },
    ].map((page) => ({ ...page, url: `/runs?fields=summary&state=published&${new URLSearchParams(page.filters as Record<string, string>)}&offset=50&limit=50` }));

    // The raw side runs the SQL the listing compiles, prepared once on the engine's driver:
    // what the store layer (query building, the async driver) and HTTP add is what the ratio shows.
    const rawPages = offsetPages.map((page) => {
      const query = app.runs.listing.offsetQuery('published', page.filters, 50, 50);
      return { page: rawQuery(handle, store, query.page.compile()), count: rawQuery(handle, store, query.count.compile()) };
    });
    // The plans show whether each page is read in index order (no sort of the whole filter).
    for (const [i, page] of offsetPages.entries()) {
      console.log(`\n${store.engine}: ${page.name}`);
      for (const [label, raw] of [['page', rawPages[i]!.page], ['total', rawPages[i]!.count]] as const) console.log(`  ${label}: ${await raw.plan()}`);
      const check = JSON.parse((await client.send('GET', page.url)).body) as { runs: unknown[]; total: number };
      if (check.runs.length !== 50) throw new Error(`expected a full page, got ${check.runs.length} (total ${check.total})`);
    }

    // HTTP and raw calls alternate, so both series see the same machine load (this box is
    // shared) and no keep-alive socket sits idle through a long raw series.
    // 2,000 calls a series where a page takes well under a millisecond (SQLite reads it in
    // index order); fewer where it sorts thousands of rows, so a series stays near 20 s.
    const started = performance.now();
    await rawPages[0]!.page.run();
    const iterations = Math.max(100, Math.min(2000, Math.round(10_000 / (performance.now() - started))));
    const cursorUrl = `/runs?fields=summary&state=published&limit=50&before=${secondPage}`;
    const cursorCheck = await client.send('GET', cursorUrl);
    const cursorRuns = cursorCheck.status === 200 ? (JSON.parse(cursorCheck.body) as { runs: unknown[] }).runs.length : 0;
    if (cursorRuns !== 50) throw new Error(`expected a full cursor page, got HTTP ${cursorCheck.status}: ${cursorCheck.body.slice(0, 200)}`);
    const cursorRaw = rawQuery(handle, store, app.runs.listing.cursorQuery('published', secondPage, 50).compile());
    const series = [
      ...offsetPages.map((page, i) => ({
        name: page.name,
        http: () => client.send('GET', page.url),
        raw: async () => [await rawPages[i]!.page.run(), await rawPages[i]!.count.run()],
      })),
      { name: 'cursor page (published, second page)', http: () => client.send('GET', cursorUrl), raw: () => cursorRaw.run() },
    ];
    const measured: Array<[string, LatencySummary, LatencySummary]> = [];
    for (const { name, http, raw } of series) measured.push([name, ...(await timePaired(iterations, Math.ceil(iterations / 10), http, raw))]);
    const floors = await measureFloors(redisUrl, 2000);
    return {
      listing: measured.map(([name, http, raw]) => {
        const ratio = http.p50 / (raw.p50 + floors.noopPost.p50);
        return { engine: store.engine, measure: name, calls: String(iterations), http: ms(http.p50), raw: ms(raw.p50), 'no-op floor': ms(floors.noopPost.p50), ratio: ratio.toFixed(2), verdict: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL' };
      }),
      storing: await measureStoring(backend, handle),
    };
  } finally {
    client.close();
    await handle.close();
  }
}

/**
 * `STORED` records stored at once, as that many drivers' final reports store them (the record
 * store's `store`, each run regraded after), against the writes this needs at least: on the
 * engine's own driver, one transaction inserting the row and one writing its grade, per run.
 * No target: the ratio shows what the store path (query building, the reads around the
 * writes, queueing for SQLite's one connection) adds.
 */
async function measureStoring(backend: BenchBackend, handle: RawHandle): Promise<Record<string, string>> {
  const { app, store } = backend;
  const begin = rawStatement(handle, store.engine === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN');
  const commit = rawStatement(handle, 'COMMIT');
  const now = new Date().toISOString();
  const rowValues = (i: number) => {
    const raw = record(i);
    return runValues({ id: raw.id, jobId: `job-${raw.id}`, record: JSON.stringify(raw), recordFormat: 1, decodeError: null, events: '[]', lifted: decodeRunRecord(raw).lifted }, now);
  };
  const first = rowValues(RUNS + STORED);
  const insert = store.db.insertInto('runs').values(first).compile();
  if (JSON.stringify(insert.parameters) !== JSON.stringify(Object.values(first))) throw new Error('the raw insert binds its values in another order than the compiled one');
  const grade = store.db.updateTable('runs').set({ grade: '', grade_key: '', case_name: '', review_count: 0 }).where('id', '=', '').compile();
  const [inserted, graded] = [rawStatement(handle, insert.sql), rawStatement(handle, grade.sql)];

  const rawStart = performance.now();
  for (let i = RUNS + STORED; i < RUNS + 2 * STORED; i++) {
    const values = rowValues(i);
    await begin([]);
    await inserted(Object.values(values));
    await commit([]);
    await begin([]);
    await graded(['{"rating":null,"aesthetic":null,"validatorRated":false,"score":null}', '|', values.test_case_slug, 0, values.id]);
    await commit([]);
  }
  const rawMs = performance.now() - rawStart;

  const start = performance.now();
  const stored = await Promise.all(Array.from({ length: STORED }, (_, k) => app.runs.records.store(`job-store-${k}`, record(RUNS + k), [])));
  await Promise.all(stored.map((one) => one.graded));
  const storeMs = performance.now() - start;
  const gradedCount = await store.db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('id', 'in', stored.map((one) => one.recordId)).where('grade_key', 'is not', null).executeTakeFirstOrThrow();
  if (gradedCount.n !== STORED) throw new Error(`expected ${STORED} graded runs, found ${gradedCount.n}`);
  return { engine: store.engine, store: ms(storeMs), raw: ms(rawMs), ratio: (storeMs / rawMs).toFixed(2) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchRunsListing();

import { createHash } from 'node:crypto';
import { catalogIndex } from '../catalog/catalog-index.js';
import { definitionCopies } from '../catalog/definition-copies.js';
import { definitionStoreRoot } from '../catalog/ingest-deps.js';
import { storedVersions } from '../catalog/stored-versions.js';
import { openBlobStore } from '../blob/open-blob-store.js';
import type { Config } from '../config.js';
import { openStore } from '../db/open-store.js';
import { runGrades } from '../runs/run-grades.js';
import { runRows } from '../runs/run-rows.js';
import { checkAuthSource, detectGeneration, type SourceShape } from './detect-generation.js';
import { ImportRefused } from './import-refused.js';
import { importAccounts, refuseCaseFoldedUsernames } from './import-accounts.js';
import { importCoverageSettings } from './import-coverage-settings.js';
import { importHarnessCaps } from './import-harness-caps.js';
import { importModels } from './import-models.js';
import { importPriceHistory } from './import-price-history.js';
import { coverageGroupsTable, coveragePlansTable, reviewPlansTable } from './map-coverage.js';
import { ggConfigsTable } from './map-gg-configs.js';
import { importLadderStanding, ladderRungsTable, laddersTable } from './map-ladders.js';
import { importRuns } from './import-runs.js';
import { jobsTable, publishJobsTable } from './map-jobs.js';
import { requeueCheck } from './requeue-waiting.js';
import { importKeyed } from './write-keyed.js';
import { TableLedger, type TableLedgerJson } from './ledger.js';
import { holdDataDir, refuseOtherSessions } from './service-running.js';
import { openSource, type SourceDb } from './source-db.js';
import { IMPORTED, NO_HOME, NOT_YET } from './table-homes.js';

/** Source rows per page and per target transaction. */
export const IMPORT_BATCH_ROWS = 256;

export interface ImportOptions {
  /** The original's backend database: a SQLite file path or a postgres:// URL. */
  from: string;
  /** Its auth service's database. */
  authFrom?: string;
  dryRun?: boolean;
  /** Import into a store that already holds data, where the ids are disjoint. */
  merge?: boolean;
  /** Plans and ladders running in the original stay running here (by default every one is imported paused). */
  keepSchedules?: boolean;
  /** Waiting jobs that pass our launch rules are written queued, for our next boot to queue (D2); needs `authFrom`. */
  requeueWaiting?: boolean;
  batchRows?: number;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
}

export interface ImportReport {
  source: string;
  authSource: string | null;
  generation: string;
  migrations: number;
  fingerprint: string;
  target: string;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  tables: TableLedgerJson[];
  /** Published runs this build cannot read: they leave our listings and the snapshot. */
  publishedUnreadable: string[];
  regraded: number;
  balanced: boolean;
}

/**
 * `eval-backend import-original`: reads the original's database in one read-only snapshot,
 * detects its generation (refusing what it does not know before anything is written), and
 * writes what has a home here through our own write paths, page by page, with a ledger per
 * source table. The store is ours as configured (`DATA_DIR`'s SQLite or `DATABASE_URL`).
 */
export async function importOriginal(config: Config, options: ImportOptions): Promise<ImportReport> {
  const startedAt = new Date().toISOString();
  if (options.requeueWaiting && !options.authFrom) {
    throw new ImportRefused('--requeue-waiting needs --auth-from: a waiting job is queued again only for an account the import brings over.');
  }
  const batchRows = options.batchRows ?? IMPORT_BATCH_ROWS;
  const source = await openSource(options.from);
  const opened: Array<{ close(): Promise<void> | void }> = [source];
  try {
    const shape = await detectGeneration(source);
    let auth: SourceDb | null = null;
    if (options.authFrom) {
      auth = await openSource(options.authFrom);
      opened.push(auth);
      await checkAuthSource(auth);
      await refuseCaseFoldedUsernames(auth);
    }
    const tables = await source.tables();
    const counts = new Map<string, number>();
    for (const table of tables) counts.set(table, await source.count(table));
    const fingerprint = await fingerprintOf(source, shape, counts);
    options.onProgress?.(`${source.label}: the original's generation ${shape.generation} (${shape.migrations.length} migrations), ${counts.get('run') ?? 0} runs`);

    const lock = options.dryRun ? null : await holdDataDir(config.dataDir);
    if (lock) opened.push({ close: () => lock.release() });
    const target = await openStore(config);
    opened.push(target);
    const { store } = target;
    if (!options.dryRun) {
      await refuseOtherSessions(store, target.location);
      await refuseFilledTarget(store, fingerprint, options.merge ?? false, target.location);
      await store.db.insertInto('original_imports').values({ fingerprint, finished_at: startedAt, balanced: 0, report: JSON.stringify({ state: 'started', source: source.label }) }).execute();
    }

    const ledgers = new Map<string, TableLedger>();
    const ledger = (table: string) => {
      let found = ledgers.get(table);
      if (!found) ledgers.set(table, (found = new TableLedger(table, IMPORTED[table] ?? NOT_YET[table] ?? null)));
      return found;
    };
    const publishedUnreadable: string[] = [];
    const dryRun = options.dryRun ?? false;
    const schedules = { keep: options.keepSchedules ?? false };
    const keyed = (table: string) => ({ source, store, dryRun, batchRows, ledger: ledger(table), signal: options.signal });
    // Accounts first: nothing of ours refers to them by a foreign key, but everything by id.
    if (auth) await importAccounts(config, auth, { dryRun, batchRows, ledger });
    // Models before runs: a record without a cost is priced at its model's list price.
    if (shape.has('model')) await importModels({ source, shape, store, dryRun, batchRows, ledger });
    if (shape.has('model_price')) await importPriceHistory({ source, shape, store, dryRun, ledger: ledger('model_price') });
    if (shape.has('harness_config')) await importHarnessCaps({ source, store, dryRun, batchRows, ledger: ledger('harness_config') });
    // gg configurations before plans and ladders: their members name them `saved:<id>`.
    if (shape.has('gg_config')) await importKeyed(ggConfigsTable(), keyed('gg_config'));
    // Groups before plans (a plan names its groups), every plan with its schedule in one transaction.
    if (shape.has('coverage_group')) await importKeyed(coverageGroupsTable(), keyed('coverage_group'));
    if (shape.has('coverage_plan')) await importKeyed(coveragePlansTable(store, shape, schedules), keyed('coverage_plan'));
    if (shape.has('review_plan')) await importKeyed(reviewPlansTable(store), keyed('review_plan'));
    if (shape.has('coverage_settings')) await importCoverageSettings({ source, shape, store, dryRun, batchRows, ledger: ledger('coverage_settings') });
    // Ladders with their schedules, then rungs (ids kept: verdicts point at them), then climbers and verdicts.
    if (shape.has('ladder')) {
      await importKeyed(laddersTable(source, store, shape, schedules), keyed('ladder'));
      if (shape.has('ladder_rung')) await importKeyed(ladderRungsTable(store), keyed('ladder_rung'));
      await importLadderStanding({ source, shape, store, dryRun, ledger });
    }
    // Jobs before runs: a run names the job that produced it.
    if (shape.has('job')) {
      const requeue = options.requeueWaiting && auth ? await requeueCheck(config, store, auth) : null;
      try {
        await importKeyed(jobsTable(shape, requeue?.check), keyed('job'));
      } finally {
        requeue?.close();
      }
    }
    await importRuns({
      source, shape, store, dryRun, batchRows, ledger, publishedUnreadable, signal: options.signal,
      onPage: (read, written) => options.onProgress?.(`run: ${read} read, ${written} written`),
    });
    options.onProgress?.(`imported runs and reviews`);
    if (shape.has('publish_job')) {
      const runImported = async (id: string) =>
        dryRun
          ? (await source.all('SELECT 1 AS found FROM run WHERE id = ?', [id])).length > 0
          : (await store.db.selectFrom('runs').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
      await importKeyed(publishJobsTable(runImported), keyed('publish_job'));
    }

    // Every other table is in the ledger too: counted, and named with why it is not written.
    const authTables = auth ? (await auth.tables()).filter((t) => t === 'user' || t === 'token') : [];
    for (const [table, count] of [...counts, ...(await Promise.all(authTables.map(async (t) => [t, await auth!.count(t)] as const)))]) {
      if (table === 'seaql_migrations' || ledgers.has(table)) continue;
      const entry = ledger(table);
      entry.read = count;
      // A table with an importer that did not run (the source lacks the table it goes with) is never taken as moved.
      const home = NOT_YET[table] ?? IMPORTED[table];
      const reason = NO_HOME[table] ?? (home ? `has a home here (${home}), but this build does not import it yet` : 'a table this importer does not know');
      entry.skipAll(reason, count);
    }

    let regraded = 0;
    if (!options.dryRun) {
      const rows = runRows(store);
      const index = catalogIndex(store);
      const blobs = openBlobStore(config);
      try {
        regraded = await runGrades({ store, rows, index, versions: storedVersions(index, definitionCopies(blobs, definitionStoreRoot(config))) }).regradeStale();
      } finally {
        blobs.close();
      }
    }

    const tablesJson = [...ledgers.values()].map((entry) => { entry.dryRun = options.dryRun ?? false; return entry.toJSON(); });
    const report: ImportReport = {
      source: source.label,
      authSource: auth?.label ?? null,
      generation: shape.generation,
      migrations: shape.migrations.length,
      fingerprint,
      target: target.location,
      dryRun: options.dryRun ?? false,
      startedAt,
      finishedAt: new Date().toISOString(),
      tables: tablesJson,
      publishedUnreadable,
      regraded,
      balanced: tablesJson.every((t) => t.balanced),
    };
    if (!options.dryRun) {
      await store.db.insertInto('original_imports').values({ fingerprint, finished_at: report.finishedAt, balanced: report.balanced ? 1 : 0, report: JSON.stringify(report) }).execute();
    }
    return report;
  } finally {
    for (const handle of opened.reverse()) await handle.close();
  }
}

/**
 * SHA-256 over the source's migration names, row counts and largest run id: a rerun against
 * the same source recognises the target it filled (even one a killed import left half done).
 */
async function fingerprintOf(source: SourceDb, shape: SourceShape, counts: Map<string, number>): Promise<string> {
  const hash = createHash('sha256');
  for (const name of shape.migrations) hash.update(`${name}\n`);
  for (const [table, count] of [...counts].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${table}=${count}\n`);
  const newest = await source.all('SELECT max(id) AS id FROM run');
  hash.update(`run.max=${String(newest[0]?.id ?? '')}\n`);
  return hash.digest('hex');
}

/** Tables whose rows mean the target is in use. */
const DATA_TABLES = ['runs', 'run_reviews', 'jobs', 'coverage_plans', 'ladders'] as const;

/**
 * A target that holds data is refused, unless it is one an earlier import of this same
 * source wrote (a rerun, or the finish of a killed import) or `--merge` is given.
 */
async function refuseFilledTarget(store: Awaited<ReturnType<typeof openStore>>['store'], fingerprint: string, merge: boolean, label: string): Promise<void> {
  if (merge) return;
  const ours = await store.db.selectFrom('original_imports').select('id').where('fingerprint', '=', fingerprint).limit(1).executeTakeFirst();
  if (ours) return;
  for (const table of DATA_TABLES) {
    const row = await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
    if (Number(row?.n ?? 0) > 0) {
      throw new ImportRefused(
        `${label} already holds data (${row!.n} rows in ${table}) that no import of this source wrote: import into an empty store, or pass --merge to import only where the ids are disjoint (a row under an id the store already holds differently is refused, never overwritten). Nothing was written.`,
      );
    }
  }
}

import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EXIT, UnusableError, type CliIo } from '../cli/cli-io.js';
import { formatTable } from '../cli/format-table.js';
import { ConfigError, loadConfig } from '../config.js';
import { ImportRefused } from './import-refused.js';
import { importOriginal, type ImportReport } from './import-original.js';

export interface ImportCommandOptions {
  from: string;
  authFrom?: string;
  report?: string;
  dryRun?: boolean;
  merge?: boolean;
  acceptUnreadable?: boolean;
  keepSchedules?: boolean;
  requeueWaiting?: boolean;
  batchRows?: string;
}

/**
 * `eval-backend import-original`: prints the ledger, writes it as JSON, and exits 0 only when
 * every table balances (and no published run is unreadable, unless accepted); 1 when one
 * does not, or the import failed part way (run it again to finish); 2 when it was refused
 * before anything was written.
 */
export async function importCommand(options: ImportCommandOptions, io: CliIo): Promise<number> {
  let config;
  try {
    config = loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) throw new UnusableError(error.message);
    throw error;
  }
  let report: ImportReport;
  try {
    report = await importOriginal(config, {
      from: options.from,
      authFrom: options.authFrom,
      dryRun: options.dryRun,
      merge: options.merge,
      keepSchedules: options.keepSchedules,
      requeueWaiting: options.requeueWaiting,
      batchRows: batchRowsOf(options.batchRows),
      signal: io.signal,
      onProgress: (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    if (error instanceof ImportRefused) throw new UnusableError(error.message, { cause: error });
    io.stderr.write(`eval-backend: the import stopped part way: ${(error as Error).message}\nEvery page written before it is complete; run the same command again to finish.\n`);
    return EXIT.failed;
  }
  io.stdout.write(`${describe(report)}\n`);
  const file = options.report ? resolve(io.cwd, options.report) : report.dryRun ? null : join(config.dataDir, `import-${report.finishedAt.replaceAll(':', '-')}.json`);
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
    io.stdout.write(`The ledger is in ${file}${report.dryRun ? '' : ' and in the store (original_imports)'}.\n`);
  }
  const unbalanced = report.tables.filter((t) => !t.balanced);
  if (unbalanced.length > 0) {
    io.stderr.write(`eval-backend: ${unbalanced.length} table(s) do not balance: ${unbalanced.map((t) => t.table).join(', ')}\n`);
    return EXIT.failed;
  }
  // Balanced, yet not moved: rows that have a home here which this build does not write yet.
  const pending = report.tables.filter((t) => t.skipped.some((s) => s.reason.startsWith('has a home here')));
  if (pending.length > 0) {
    io.stderr.write(
      `eval-backend: ${pending.map((t) => `${t.read} ${t.table} row(s)`).join(', ')} have a home here but this build does not import them yet; ` +
        'they are counted, not moved. Do not switch a deployment that needs them yet.\n',
    );
    return EXIT.failed;
  }
  if (report.publishedUnreadable.length > 0 && !options.acceptUnreadable) {
    io.stderr.write(
      `eval-backend: ${report.publishedUnreadable.length} published run(s) are unreadable by this build and leave the listings and the snapshot: ${report.publishedUnreadable.join(', ')}. ` +
        'They are kept (GET /runs/unreadable); pass --accept-unreadable to accept that.\n',
    );
    return EXIT.failed;
  }
  return EXIT.ok;
}

/** The ledger as a table, then every refusal with its ids, every skip reason and the notes. */
function describe(report: ImportReport): string {
  const lines = [
    `${report.dryRun ? 'Dry run (nothing written): ' : ''}${report.source} (generation ${report.generation}, ${report.migrations} migrations) -> ${report.target}`,
    formatTable(
      ['table', 'home', 'read', 'imported', 'unreadable', 'skipped', 'refused', 'written', 'mapped digest', 'verbatim digest', 'ok'],
      report.tables.map((t) => [
        t.table,
        t.home ?? '-',
        String(t.read),
        String(t.imported),
        String(t.importedUnreadable),
        String(t.skipped.reduce((n, s) => n + s.count, 0)),
        String(t.refused.reduce((n, s) => n + s.count, 0)),
        String(t.written),
        digest(t.mappedDigest),
        digest(t.verbatimDigest),
        t.balanced ? 'ok' : 'UNBALANCED',
      ]),
    ),
  ];
  for (const t of report.tables) {
    for (const r of t.refused) lines.push(`refused ${t.table}: ${r.count} (${r.reason}): ${r.ids.join(', ')}`);
    for (const s of t.skipped) lines.push(`skipped ${t.table}: ${s.count} (${s.reason})${s.ids.length ? `: ${s.ids.join(', ')}` : ''}`);
    for (const note of t.notes.slice(0, 10)) lines.push(`note ${t.table}: ${note}`);
    if (t.notes.length > 10) lines.push(`note ${t.table}: … ${t.notes.length - 10} more in the JSON report`);
  }
  if (!report.dryRun) lines.push(`Regraded ${report.regraded} run(s). Start the service, then POST /snapshot/refresh to publish the imported runs' snapshot.`);
  return lines.join('\n');
}

const digest = (pair: { source: string; target: string } | null) =>
  pair === null ? '-' : pair.source === pair.target ? pair.source : `${pair.source} != ${pair.target}`;

function batchRowsOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rows = Number(value);
  if (!Number.isInteger(rows) || rows < 1 || rows > 10_000) throw new UnusableError(`--batch-rows must be a whole number from 1 to 10000, not ${JSON.stringify(value)}.`);
  return rows;
}

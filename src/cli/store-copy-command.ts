import { copyStore, StoreCopyRefused } from '../db/store-copy/copy-store.js';
import { storeLocation } from '../db/store-copy/store-location.js';
import { EXIT, UnusableError, type CliIo } from './cli-io.js';
import { formatTable } from './format-table.js';

export interface StoreCopyOptions {
  from: string;
  to: string;
  replace?: boolean;
}

/**
 * `eval-backend store copy`: copies a whole store between SQLite and PostgreSQL with the
 * service stopped, then prints each table's rows and checksum on both sides. Exit 0 when
 * every table matches, 1 on any mismatch, 2 when the copy is refused or cannot start.
 * A PostgreSQL URL is only ever printed with its password masked.
 */
export async function storeCopyCommand(options: StoreCopyOptions, io: CliIo): Promise<number> {
  const from = storeLocation(options.from, io.cwd);
  const to = storeLocation(options.to, io.cwd);
  io.stdout.write(`Copying ${from.label} -> ${to.label}\n`);
  let reports;
  try {
    reports = await copyStore(from, to, {
      replace: options.replace ?? false,
      signal: io.signal,
      onTable: (table, rows) => io.stderr.write(`copied ${table}: ${rows} rows\n`),
    });
  } catch (error) {
    throw new UnusableError(describe(error, [from, to]), { cause: error });
  }
  io.stdout.write(
    `${formatTable(
      ['table', 'rows', 'checksum', 'ok'],
      reports.map((r) => [
        r.table,
        r.sourceRows === r.targetRows ? String(r.sourceRows) : `${r.sourceRows} -> ${r.targetRows}`,
        r.sourceChecksum === r.targetChecksum ? r.sourceChecksum : `${r.sourceChecksum} -> ${r.targetChecksum}`,
        r.ok ? 'ok' : 'MISMATCH',
      ]),
    )}\n`,
  );
  const bad = reports.filter((r) => !r.ok);
  if (bad.length > 0) {
    io.stderr.write(`eval-backend: ${bad.length} table(s) differ after the copy: ${bad.map((r) => r.table).join(', ')}\n`);
    return EXIT.failed;
  }
  io.stdout.write(`Copied ${reports.length} tables, ${reports.reduce((n, r) => n + r.targetRows, 0)} rows; every count and checksum matches.\n`);
  return EXIT.ok;
}

/** The failure in one line, with any URL in it masked (a driver's message may repeat what it was given). */
function describe(error: unknown, locations: Array<ReturnType<typeof storeLocation>>): string {
  let message = error instanceof StoreCopyRefused ? error.message : `store copy failed: ${(error as Error).message}`;
  for (const location of locations) {
    if (location.engine === 'postgres') message = message.replaceAll(location.url, location.label);
  }
  return message;
}

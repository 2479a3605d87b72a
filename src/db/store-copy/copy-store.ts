import { readMigrations } from '../migration-files.js';
import { BACKEND_MIGRATIONS } from '../open-database.js';
import { postgresSource, postgresTarget } from './postgres-side.js';
import { sqliteSource, sqliteTarget } from './sqlite-side.js';
import type { Row, StoreSide, TableShape, TargetSide } from './store-side.js';
import { sameStore, type StoreLocation } from './store-location.js';
import { TableChecksum } from './table-checksum.js';

/** Rows read and written per statement: large enough to amortise a round trip, small enough to stay far below memory limits. */
const COPY_BATCH_ROWS = 1000;

/**
 * Tables a freshly migrated target already fills (the applied migrations, the new store's
 * id): always replaced by the source's, so the copy keeps the source's identity and history.
 */
const SEEDED_BY_MIGRATIONS = new Set(['schema_migrations', 'store_meta']);

/** A copy the command refuses before copying any row, with why and what to do. */
export class StoreCopyRefused extends Error {
  override readonly name = 'StoreCopyRefused';
}

export interface TableReport {
  table: string;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  ok: boolean;
}

export interface CopyOptions {
  /** Empty a target that already holds rows instead of refusing it. */
  replace?: boolean;
  batchRows?: number;
  /** Aborting it stops the copy between batches and rolls the target back. */
  signal?: AbortSignal;
  /** Called after each table is written, for progress lines. */
  onTable?: (table: string, rows: number) => void;
}

/**
 * Copies a whole store from one location to the other (either engine on either side), with
 * the service stopped. The target is created or migrated by this build first; the source
 * must carry exactly this build's migrations. Every table is read in key order, batch by
 * batch, and written in one target transaction, so a failure leaves the target as it was.
 * Then each table is read back from the target and its row count and checksum compared with
 * the source's: the answer has one line per table, and `ok` false on any mismatch.
 */
export async function copyStore(from: StoreLocation, to: StoreLocation, options: CopyOptions = {}): Promise<TableReport[]> {
  if (sameStore(from, to)) throw new StoreCopyRefused(`--from and --to name the same store (${to.label}).`);
  const batchRows = options.batchRows ?? COPY_BATCH_ROWS;
  const source = await openSource(from);
  try {
    await checkSourceMigrations(source);
    const tables = copyOrder(await source.tables());
    const target = await openTarget(to);
    try {
      // The target's own tables (its column types and families) with their columns in the source's order, so rows line up.
      const targetTables = alignTables(tables, await target.tables(), source, target);
      const sums = new Map<string, TableChecksum>();
      await target.begin();
      try {
        await refuseFilledTarget(target, tables, options.replace ?? false);
        await target.clear(targetTables);
        for (const table of tables) {
          const into = targetTables.find((t) => t.name === table.name)!;
          const sum = new TableChecksum(table.columns);
          for await (const rows of source.batches(table, batchRows)) {
            options.signal?.throwIfAborted();
            for (const row of rows) {
              if (to.engine === 'postgres') refuseNulText(table, row);
              sum.add(row);
            }
            await target.insert(into, rows).catch((error: unknown) => {
              throw new Error(`${target.label}: the rows of ${table.name} from ${keyOf(table, rows[0]!)} to ${keyOf(table, rows.at(-1)!)} could not be copied: ${(error as Error).message}`, { cause: error });
            });
          }
          sums.set(table.name, sum);
          options.onTable?.(table.name, sum.rows);
        }
        await target.resetIdentities(targetTables);
        await target.commit();
      } catch (error) {
        await target.rollback();
        throw error;
      }
      return await verify(target, targetTables, sums, batchRows);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** A row's key as `column=value` pairs (a keyless table's row as its values), for naming the row in an error. */
function keyOf(table: TableShape, row: Row): string {
  const show = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value.slice(0, 200)) : value instanceof Buffer ? `<${value.length} bytes>` : String(value));
  const columns = table.key.length > 0 ? table.key : table.columns.map((column) => column.name);
  return `(${columns.map((name) => `${name}=${show(row[table.columns.findIndex((column) => column.name === name)])}`).join(', ')})`;
}

/**
 * PostgreSQL text cannot hold a NUL character, which SQLite's can (a row written before the
 * API refused one): such a row is refused before anything is written, naming its table, key
 * and column, so it can be mended at the source, rather than failing the whole copy unnamed.
 */
function refuseNulText(table: TableShape, row: Row): void {
  const at = row.findIndex((value) => typeof value === 'string' && value.includes('\0'));
  if (at === -1) return;
  throw new StoreCopyRefused(
    `${table.name} row ${keyOf(table, row)} holds a NUL character (\\u0000) in column ${table.columns[at]!.name}, which PostgreSQL text cannot keep; ` +
      'remove it from that row in the source and copy again.',
  );
}

async function openSource(location: StoreLocation): Promise<StoreSide> {
  return opening(location, async () => (location.engine === 'sqlite' ? sqliteSource(location.file) : postgresSource(location.url, location.label)));
}

async function openTarget(location: StoreLocation): Promise<TargetSide> {
  return opening(location, async () => (location.engine === 'sqlite' ? sqliteTarget(location.file) : postgresTarget(location.url, location.label)));
}

/** A store that cannot be opened (or migrated) is named in the error: the driver's message rarely says which. */
async function opening<T>(location: StoreLocation, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    throw new Error(`${location.label}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The source's applied migrations must be this build's, no more and no fewer: an older
 * store has columns this build's target lacks or fills differently, a newer one the reverse.
 * (Both engines' folders hold the same numbers and names; the schema test keeps them so.)
 */
async function checkSourceMigrations(source: StoreSide): Promise<void> {
  const applied = await source.appliedMigrations();
  const known = readMigrations(BACKEND_MIGRATIONS).files.map((file) => file.name);
  const have = applied.map((row) => row.name);
  if (have.length === 0) throw new StoreCopyRefused(`${source.label} holds no store of this backend (no applied migrations).`);
  const missing = known.filter((name) => !have.includes(name));
  const unknown = have.filter((name) => !known.includes(name));
  if (missing.length === 0 && unknown.length === 0) return;
  throw new StoreCopyRefused(
    `${source.label} was migrated by another build` +
      (missing.length > 0 ? `; it lacks ${missing.join(', ')}` : '') +
      (unknown.length > 0 ? `; this build does not know ${unknown.join(', ')}` : '') +
      '. Copy it with the build that wrote it, or start this build\'s service on it once (it migrates at boot) and copy again.',
  );
}

/**
 * The target's tables in the source's order, each with its columns in the source's order.
 * After migrating, both must hold the same tables with the same columns (the schema test
 * keeps the two engines' migrations so); a target changed by hand is refused.
 */
function alignTables(tables: TableShape[], targetTables: TableShape[], source: StoreSide, target: StoreSide): TableShape[] {
  const columnsOf = (table: TableShape | undefined) => table?.columns.map((c) => c.name).sort().join(',');
  const byName = new Map(targetTables.map((t) => [t.name, t]));
  const names = [...new Set([...tables.map((t) => t.name), ...byName.keys()])];
  const differ = names.filter((name) => columnsOf(tables.find((t) => t.name === name)) !== columnsOf(byName.get(name))).sort();
  if (differ.length > 0) {
    throw new StoreCopyRefused(`The tables of ${source.label} and ${target.label} differ after migrating (${differ.join(', ')}); one was changed outside the migrations.`);
  }
  return tables.map((table) => {
    const own = byName.get(table.name)!;
    return { ...own, columns: table.columns.map((column) => own.columns.find((c) => c.name === column.name)!) };
  });
}

async function refuseFilledTarget(target: TargetSide, tables: TableShape[], replace: boolean): Promise<void> {
  if (replace) return;
  const filled: string[] = [];
  for (const table of tables) {
    if (SEEDED_BY_MIGRATIONS.has(table.name)) continue;
    const rows = await target.count(table.name);
    if (rows > 0) filled.push(`${table.name} (${rows})`);
  }
  if (filled.length > 0) {
    throw new StoreCopyRefused(`${target.label} already holds rows: ${filled.join(', ')}. Pass --replace to empty it first, or copy into an empty store.`);
  }
}

/** Parents before children, so every foreign key finds its row; ties by name, so the order is the same every run. */
function copyOrder(tables: TableShape[]): TableShape[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (table: TableShape) => {
    if (placed.has(table.name)) return;
    if (visiting.has(table.name)) throw new Error(`Foreign keys form a cycle through ${table.name}; the copy cannot order it.`);
    visiting.add(table.name);
    for (const parent of [...table.parents].sort()) {
      const found = byName.get(parent);
      if (found) place(found);
    }
    visiting.delete(table.name);
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) place(table);
  return ordered;
}

async function verify(target: TargetSide, tables: TableShape[], sums: Map<string, TableChecksum>, batchRows: number): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  for (const table of tables) {
    const source = sums.get(table.name)!;
    const copied = new TableChecksum(table.columns);
    for await (const rows of target.batches(table, batchRows)) for (const row of rows) copied.add(row);
    reports.push({
      table: table.name,
      sourceRows: source.rows,
      targetRows: copied.rows,
      sourceChecksum: source.digest,
      targetChecksum: copied.digest,
      ok: source.rows === copied.rows && source.digest === copied.digest,
    });
  }
  return reports;
}

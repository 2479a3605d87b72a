import type { Kysely } from 'kysely';
import { writeTransaction, type BackendStore } from '../db/dialect.js';
import type { StoreSchema } from '../db/store-schema.js';
import type { TableLedger } from './ledger.js';
import type { SourceDb, SourceRow } from './source-db.js';

/** One source row as a keyed row of ours, or why it is not imported. */
export type KeyedRow =
  | { id: string; values: Record<string, unknown>; note?: string }
  | { id: string; refused: string }
  | { id: string; skipped: string };

export interface KeyedTable {
  source: string;
  /** The source table's key, for keyset pages. */
  sourceKey: readonly string[];
  target: string;
  /** Our table's key column holding the kept id. */
  targetKey: string;
  /** The mapped columns both digests cover (the first is `targetKey`), and the verbatim ones. */
  digest: readonly string[];
  verbatim: readonly string[];
  map(row: SourceRow): KeyedRow | Promise<KeyedRow>;
  /**
   * Rows of another table that belong to each row (a plan's or a ladder's schedule), written
   * in the same transaction through their own table module: `columns` are the row's values
   * kept for them (not columns of `target`), in the digests and the rerun comparison alike.
   */
  companion?: {
    columns: readonly string[];
    write(trx: Kysely<StoreSchema>, id: string, values: Record<string, unknown>): Promise<void>;
    read(db: Kysely<StoreSchema>, ids: string[]): Promise<Map<string, Record<string, unknown>>>;
  };
}

/**
 * Imports a table whose rows keep their ids by keyed inserts (our table modules' own
 * `create` functions mint ids), page by page, one transaction a page. A row the store holds
 * already under its id is compared first: equal is imported and not written again, different
 * is a conflict, refused and never overwritten. After each commit the page is read back into
 * the target digests.
 */
export async function importKeyed(spec: KeyedTable, deps: { source: SourceDb; store: BackendStore; dryRun: boolean; batchRows: number; ledger: TableLedger; signal?: AbortSignal }): Promise<void> {
  const { store, ledger } = deps;
  // The tables differ per call; the rows are the ones our migrations define (store-schema.ts).
  const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const columns = [...new Set([...spec.digest, ...spec.verbatim])];
  const companionColumns = new Set(spec.companion?.columns ?? []);
  const own = columns.filter((c) => !companionColumns.has(c));
  ledger.digests(spec.digest, spec.verbatim);
  const held = async (ids: string[]) => {
    if (ids.length === 0) return new Map<string, Record<string, unknown>>();
    const rows = await db.selectFrom(spec.target).select(own).where(spec.targetKey, 'in', ids).execute();
    const found = new Map(rows.map((row) => [String(row[spec.targetKey]), row]));
    if (spec.companion) {
      const extra = await spec.companion.read(store.db, ids);
      for (const [id, row] of found) Object.assign(row, extra.get(id) ?? Object.fromEntries([...companionColumns].map((c) => [c, '\u0002missing'])));
    }
    return found;
  };
  const same = (a: Record<string, unknown>, b: Record<string, unknown>) => columns.every((c) => String(a[c] ?? '\u0001null') === String(b[c] ?? '\u0001null'));

  for await (const page of deps.source.pages(spec.source, spec.sourceKey, deps.batchRows)) {
    deps.signal?.throwIfAborted();
    const mapped: Array<{ id: string; values: Record<string, unknown> }> = [];
    for (const row of page) {
      ledger.read += 1;
      const result = await spec.map(row);
      if ('refused' in result) ledger.refuse(result.refused, result.id);
      else if ('skipped' in result) ledger.skip(result.skipped, result.id);
      else {
        if (result.note) ledger.notes.push(result.note);
        mapped.push(result);
      }
    }
    const existing = await held(mapped.map((m) => m.id));
    const accepted = mapped.filter((m) => {
      const found = existing.get(m.id);
      if (found && !same(found, m.values)) {
        ledger.refuse(`conflict: the store already holds a different ${spec.target} row under this id (never overwritten)`, m.id);
        return false;
      }
      return true;
    });
    const fresh = accepted.filter((m) => !existing.has(m.id));
    if (!deps.dryRun && fresh.length > 0) {
      await writeTransaction(store, async (trx) => {
        const t = trx as unknown as Kysely<Record<string, Record<string, unknown>>>;
        for (const m of fresh) {
          await t.insertInto(spec.target).values(Object.fromEntries(Object.entries(m.values).filter(([c]) => !companionColumns.has(c)))).execute();
          await spec.companion?.write(trx as unknown as Kysely<StoreSchema>, m.id, m.values);
        }
      });
      ledger.written += fresh.length;
    }
    for (const m of accepted) {
      ledger.imported += 1;
      ledger.mapped!.source.add(spec.digest.map((c) => m.values[c]));
      ledger.verbatim?.source.add(spec.verbatim.map((c) => m.values[c]));
    }
    if (deps.dryRun) continue;
    const after = await held(accepted.map((m) => m.id));
    for (const m of accepted) {
      const row = after.get(m.id);
      if (!row) continue;
      ledger.mapped!.target.add(spec.digest.map((c) => row[c]));
      ledger.verbatim?.target.add(spec.verbatim.map((c) => row[c]));
    }
  }
}

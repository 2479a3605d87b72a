import { TableChecksum } from '../db/store-copy/table-checksum.js';
import type { TableColumn } from '../db/store-copy/store-side.js';

/** Row ids kept per reason in the report; a reason's count is always whole. */
const IDS_KEPT = 50;

/**
 * A digest over some columns of a table's rows, the same for the rows as mapped from the
 * source and as read back from our store: values are compared as text (numbers by their
 * shortest spelling, booleans as 0/1), so an engine's types do not move it.
 */
export class Digest {
  private readonly sum: TableChecksum;
  constructor(columns: readonly string[]) {
    this.sum = new TableChecksum(columns.map((name): TableColumn => ({ name, type: 'text', family: 'text', identity: false })));
  }

  add(values: readonly unknown[]): void {
    this.sum.add(values.map(asText));
  }

  get rows(): number {
    return this.sum.rows;
  }

  get value(): string {
    return this.sum.digest;
  }
}

function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'bigint' || typeof value === 'number') return String(value);
  if (Buffer.isBuffer(value)) return value.toString('hex');
  return String(value);
}

export interface ReasonCount {
  reason: string;
  count: number;
  /** The row ids: every one refused, the first IDS_KEPT skipped. */
  ids: string[];
}

/**
 * One source table's balance: every row read is imported (written now or found equal),
 * imported unreadable, skipped with a reason, or refused with a reason and its id.
 */
export class TableLedger {
  read = 0;
  imported = 0;
  unreadable = 0;
  /** Rows this run wrote (0 on a rerun): not part of the balance. */
  written = 0;
  readonly skipped = new Map<string, string[]>();
  readonly refused = new Map<string, string[]>();
  readonly skippedCount = new Map<string, number>();
  readonly refusedCount = new Map<string, number>();
  /** Source-side and store-side digests of the mapped columns, and of the verbatim ones; null where the table has none. */
  mapped: { source: Digest; target: Digest } | null = null;
  verbatim: { source: Digest; target: Digest } | null = null;
  /** Findings that are not losses (a difference with the original's derived columns, a reshaped value). */
  readonly notes: string[] = [];

  constructor(readonly table: string, readonly home: string | null) {}

  digests(mapped: readonly string[], verbatim: readonly string[] = []): this {
    this.mapped = { source: new Digest(mapped), target: new Digest(mapped) };
    if (verbatim.length > 0) this.verbatim = { source: new Digest(verbatim), target: new Digest(verbatim) };
    return this;
  }

  /** A dry run has no store side: only its counts balance. */
  dryRun = false;

  skip(reason: string, id: string): void {
    note(this.skipped, this.skippedCount, reason, id, IDS_KEPT);
  }

  /** `count` rows skipped for one reason, none of them named (a whole table without a home). */
  skipAll(reason: string, count: number): void {
    if (count === 0) return;
    this.skippedCount.set(reason, (this.skippedCount.get(reason) ?? 0) + count);
    this.skipped.set(reason, this.skipped.get(reason) ?? []);
  }

  /** Refused rows are named every one: each is data the operator must decide about. */
  refuse(reason: string, id: string): void {
    note(this.refused, this.refusedCount, reason, id, Number.POSITIVE_INFINITY);
  }

  get skippedTotal(): number {
    return sum(this.skippedCount);
  }

  get refusedTotal(): number {
    return sum(this.refusedCount);
  }

  get balanced(): boolean {
    const counted = this.read === this.imported + this.unreadable + this.skippedTotal + this.refusedTotal;
    const same = (pair: { source: Digest; target: Digest } | null) => pair === null || (pair.source.value === pair.target.value && pair.source.rows === pair.target.rows);
    return counted && (this.dryRun || (same(this.mapped) && same(this.verbatim)));
  }

  toJSON() {
    const reasons = (ids: Map<string, string[]>, counts: Map<string, number>): ReasonCount[] =>
      [...counts].map(([reason, count]) => ({ reason, count, ids: ids.get(reason) ?? [] }));
    const pair = (p: { source: Digest; target: Digest } | null) => (p ? { source: p.source.value, target: p.target.value, rows: p.source.rows } : null);
    return {
      table: this.table,
      home: this.home,
      read: this.read,
      imported: this.imported,
      importedUnreadable: this.unreadable,
      written: this.written,
      skipped: reasons(this.skipped, this.skippedCount),
      refused: reasons(this.refused, this.refusedCount),
      mappedDigest: pair(this.mapped),
      verbatimDigest: pair(this.verbatim),
      notes: this.notes,
      balanced: this.balanced,
    };
  }
}

function note(ids: Map<string, string[]>, counts: Map<string, number>, reason: string, id: string, keep: number): void {
  counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const kept = ids.get(reason) ?? [];
  if (kept.length < keep) kept.push(id);
  ids.set(reason, kept);
}

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

export type TableLedgerJson = ReturnType<TableLedger['toJSON']>;

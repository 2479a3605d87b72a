import { createHash } from 'node:crypto';
import type { Row, TableColumn } from './store-side.js';

const MODULUS = 1n << 256n;

/**
 * A per-table checksum both engines' rows give alike: every row is hashed on its own (SHA-256
 * over its values, each tagged with its kind and length) and the row hashes are added modulo
 * 2^256. The sum does not depend on row order, so a table without a key (read by SQLite rowid
 * or PostgreSQL ctid) checks the same way as one with; a row copied twice or lost still moves it.
 *
 * Values are normalised by the column's family, not by the JavaScript type the driver chose:
 * an integer is its decimal digits whether it came as bigint or number; a double is its 64
 * bits, so the last bit (and -0) counts; NULL is its own tag.
 */
export class TableChecksum {
  rows = 0;
  private sum = 0n;
  constructor(private readonly columns: readonly TableColumn[]) {}

  add(row: Row): void {
    const hash = createHash('sha256');
    for (let i = 0; i < this.columns.length; i++) hash.update(encode(row[i], this.columns[i]!));
    this.sum = (this.sum + BigInt(`0x${hash.digest('hex')}`)) % MODULUS;
    this.rows += 1;
  }

  /** The first 16 hex digits of the sum: enough to tell two tables apart in a printed report. */
  get digest(): string {
    return this.sum.toString(16).padStart(64, '0').slice(0, 16);
  }
}

const doubleBits = Buffer.alloc(8);

function encode(value: unknown, column: TableColumn): string {
  if (value === null || value === undefined) return 'N;';
  if (Buffer.isBuffer(value)) return framed('B', value.toString('hex'));
  if (typeof value === 'bigint') return framed('I', value.toString());
  if (typeof value === 'number') {
    if (column.family !== 'double' && Number.isInteger(value)) return framed('I', String(value));
    doubleBits.writeDoubleBE(value);
    return framed('F', doubleBits.toString('hex'));
  }
  return framed('T', String(value));
}

const framed = (tag: string, text: string) => `${tag}${text.length}:${text};`;

import { rfc3339ToUtc } from '../runs/rfc3339.js';

/** Readers of the original's column values, whichever driver gave them. */

export const text = (value: unknown): string | null => (value === null || value === undefined ? null : typeof value === 'string' ? value : String(value));

/** A boolean column: SQLite's 0/1, PostgreSQL's true/false. */
export const flag = (value: unknown): boolean => value === true || value === 1 || value === 1n || value === '1' || value === 't' || value === 'true';

/** A timestamp column as our UTC `toISOString` text; the original's own spelling when it is not RFC 3339. */
export const utcColumn = (value: unknown): string | null => {
  const raw = text(value);
  return raw === null ? null : (rfc3339ToUtc(raw) ?? raw);
};

/** JSON text, or undefined when it does not parse. */
export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** `IN (?, ?, …)` for `count` values. */
export const placeholders = (count: number) => `(${Array.from({ length: count }, () => '?').join(', ')})`;

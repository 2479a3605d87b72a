import { resolve } from 'node:path';
import { redactRedisUrl } from '../../redis/managed-redis.js';

/** Where `--from` or `--to` points: a PostgreSQL URL, or else a SQLite file. */
export type StoreLocation =
  | { engine: 'postgres'; url: string; label: string }
  | { engine: 'sqlite'; file: string; label: string };

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export function storeLocation(text: string, cwd: string): StoreLocation {
  if (POSTGRES_URL.test(text)) return { engine: 'postgres', url: text, label: maskPostgresUrl(text) };
  const file = resolve(cwd, text);
  return { engine: 'sqlite', file, label: file };
}

/** The URL with its password masked, whether in the user part or as a `password=` parameter: safe to print. */
export function maskPostgresUrl(url: string): string {
  const masked = redactRedisUrl(url);
  try {
    const parsed = new URL(masked);
    if (!parsed.searchParams.has('password')) return masked;
    parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return masked.replace(/([?&]password=)[^&]*/gi, '$1***');
  }
}

/** Two locations naming one store: copying it onto itself would empty it. */
export function sameStore(a: StoreLocation, b: StoreLocation): boolean {
  if (a.engine === 'sqlite' && b.engine === 'sqlite') return a.file === b.file;
  if (a.engine === 'postgres' && b.engine === 'postgres') return a.url === b.url;
  return false;
}

import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { notFound } from '../errors.js';

/**
 * Resolves a key taken from a URL (`artifacts/{path...}`, `references/{scope}/{file}`)
 * to a file inside `versionDir`, or throws 404. Refused, all alike so a probe learns
 * nothing: `..` (also once percent-decoded, e.g. `%2e%2e`), absolute paths, backslashes,
 * empty or `.` segments, NUL bytes, folders, and symlinks whose real path leaves the
 * version folder.
 */
export async function resolveInside(versionDir: string, key: string): Promise<string> {
  const missing = () => notFound(`No artifact "${key.slice(0, 200)}" in this version.`);
  const decoded = decodeOnce(key);
  if (decoded === undefined) throw missing();
  for (const form of [key, decoded]) {
    // Still encoded after one decode means the caller double-encoded a separator or a dot.
    if (form.includes('\0') || form.includes('\\') || /%(2e|2f|5c|00)/i.test(decoded)) throw missing();
    if (form.startsWith('/') || isAbsolute(form)) throw missing();
    if (form.split('/').some((part) => part === '' || part === '.' || part === '..')) throw missing();
  }
  const candidate = join(versionDir, ...decoded.split('/'));
  let real: string;
  let root: string;
  try {
    [real, root] = await Promise.all([realpath(candidate), realpath(versionDir)]);
    if (!(await stat(real)).isFile()) throw missing();
  } catch {
    throw missing();
  }
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw missing();
  return real;
}

function decodeOnce(key: string): string | undefined {
  try {
    return decodeURIComponent(key);
  } catch {
    return undefined;
  }
}

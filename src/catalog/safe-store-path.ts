import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { notFound } from '../errors.js';

/**
 * Resolves a key to a file inside `versionDir`, or throws 404. Refused, all alike so a
 * probe learns nothing: `..`, absolute paths, backslashes, empty or `.` segments, NUL
 * bytes, folders, and symlinks whose real path leaves the version folder.
 *
 * A key from a URL (`artifacts/{path...}`, the default) is percent-decoded once more than
 * the router did, so `%2e%2e` and double-encoded separators are caught too; a key from a
 * stored record (`fromUrl: false`) is used as written.
 */
export async function resolveInside(versionDir: string, key: string, options: { fromUrl?: boolean } = {}): Promise<string> {
  return (await statInside(versionDir, key, options)).path;
}

/** `resolveInside`, with the file's size from the check it already makes. */
export async function statInside(
  versionDir: string,
  key: string,
  options: { fromUrl?: boolean } = {},
): Promise<{ path: string; size: number }> {
  const missing = () => notFound(`No artifact "${key.slice(0, 200)}" in this version.`);
  const decoded = options.fromUrl === false ? key : decodeOnce(key);
  for (const form of [key, decoded]) {
    if (form.includes('\0') || form.includes('\\')) throw missing();
    // Still encoded after one decode means the caller double-encoded a separator or a dot.
    if (options.fromUrl !== false && /%(2e|2f|5c|00)/i.test(decoded)) throw missing();
    if (form.startsWith('/') || isAbsolute(form)) throw missing();
    if (form.split('/').some((part) => part === '' || part === '.' || part === '..')) throw missing();
  }
  const candidate = join(versionDir, ...decoded.split('/'));
  let real: string;
  let root: string;
  let size: number;
  try {
    [real, root] = await Promise.all([realpath(candidate), realpath(versionDir)]);
    const info = await stat(real);
    if (!info.isFile()) throw missing();
    size = info.size;
  } catch {
    throw missing();
  }
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw missing();
  return { path: real, size };
}

// A key that is not valid percent-encoding (`100%.md`) cannot hide a `%2e` either: it is
// looked up as written.
function decodeOnce(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

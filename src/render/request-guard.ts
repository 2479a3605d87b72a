import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// Schemes that never leave the renderer: inline data, in-page objects, blank frames.
const INERT_SCHEMES = new Set(['data:', 'blob:', 'about:']);

/** True when `path` is `root` itself or lies below it. Both must already be real paths. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Whether a page rendering a mockup from `rootReal` (a real path) may load `url`.
 * Only files that really live under the root are allowed: the check runs on the resolved
 * path, so neither `../` nor a symlink pointing out of the root escapes it. Everything on
 * the network is refused. `rootReal` null (a page between tasks) refuses every file.
 */
export function isRequestAllowed(url: string, rootReal: string | null): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (INERT_SCHEMES.has(parsed.protocol)) return true;
  if (parsed.protocol !== 'file:' || rootReal === null) return false;
  try {
    // Throws for file://host/… URLs; realpathSync throws for missing files, which the
    // browser would fail to load anyway.
    return isInside(rootReal, realpathSync(fileURLToPath(parsed)));
  } catch {
    return false;
  }
}

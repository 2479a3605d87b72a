import { readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { CatalogFileError } from './catalog-file-error.js';
import { toPosix } from './version-folder.js';

export interface VersionFile {
  /** Path below the walked folder, forward slashes. */
  key: string;
  /** Path to read the bytes from. */
  absolute: string;
  size: number;
  mtimeMs: number;
}

// Synchronous stat calls are several times faster than their promise versions for the
// hundreds of small files a version holds (the unchanged re-ingest budget is 50 ms for the
// whole fixture). The walk yields to the event loop every this many entries, so a large
// catalog never blocks requests for more than a few milliseconds at a time.
const ENTRIES_PER_YIELD = 256;

/**
 * Every file below `dir`, sorted by key (code-unit order, the same on every host).
 * Symlinks to files inside `checkoutRoot` are followed, so the store copy is
 * self-contained; a symlink leaving the checkout, a symlinked folder (cycles) and special
 * files are refused with an error naming the path.
 */
export async function walkVersionFiles(dir: string, checkoutRoot: string): Promise<VersionFile[]> {
  const root = realpathSync(checkoutRoot);
  const files: VersionFile[] = [];
  const problem = (absolute: string, reason: string) => new CatalogFileError(toPosix(relative(checkoutRoot, absolute)), reason);
  const pending: { folder: string; prefix: string }[] = [{ folder: dir, prefix: '' }];
  let sinceYield = 0;
  while (pending.length > 0) {
    const { folder, prefix } = pending.pop()!;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const absolute = join(folder, entry.name);
      const key = prefix + entry.name;
      if (entry.isDirectory()) {
        pending.push({ folder: absolute, prefix: `${key}/` });
        continue;
      }
      if (entry.isSymbolicLink()) {
        let rel: string | undefined;
        try {
          rel = relative(root, realpathSync(absolute));
        } catch {
          rel = undefined;
        }
        if (rel === undefined || rel.startsWith('..') || isAbsolute(rel)) throw problem(absolute, 'is a symlink that leaves the checkout (or is broken)');
      } else if (!entry.isFile()) {
        throw problem(absolute, 'is neither a file nor a folder');
      }
      const info = statSync(absolute);
      if (info.isDirectory()) throw problem(absolute, 'is a symlink to a folder, which the store does not follow');
      files.push({ key, absolute, size: info.size, mtimeMs: info.mtimeMs });
      if (++sinceYield >= ENTRIES_PER_YIELD) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
  }
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

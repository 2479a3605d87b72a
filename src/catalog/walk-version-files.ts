import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
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

/**
 * Every file below `dir`, sorted by key (code-unit order, the same on every host).
 * Symlinks to files inside `checkoutRoot` are followed, so the store copy is
 * self-contained; a symlink leaving the checkout, a symlinked folder (cycles) and special
 * files are refused with an error naming the path.
 */
export async function walkVersionFiles(dir: string, checkoutRoot: string): Promise<VersionFile[]> {
  const root = await realpath(checkoutRoot);
  const files: VersionFile[] = [];
  const problem = (absolute: string, reason: string) => new CatalogFileError(toPosix(relative(checkoutRoot, absolute)), reason);

  async function visit(folder: string, prefix: string): Promise<void> {
    const entries: Dirent[] = await readdir(folder, { withFileTypes: true });
    await Promise.all(
      entries.map(async (entry) => {
        const absolute = join(folder, entry.name);
        const key = prefix + entry.name;
        if (entry.isDirectory()) return visit(absolute, `${key}/`);
        if (entry.isSymbolicLink()) {
          const target = await realpath(absolute).catch(() => undefined);
          const rel = target === undefined ? undefined : relative(root, target);
          if (rel === undefined || rel.startsWith('..') || isAbsolute(rel)) throw problem(absolute, 'is a symlink that leaves the checkout (or is broken)');
        } else if (!entry.isFile()) {
          throw problem(absolute, 'is neither a file nor a folder');
        }
        const info = await stat(absolute);
        if (info.isDirectory()) throw problem(absolute, 'is a symlink to a folder, which the store does not follow');
        files.push({ key, absolute, size: info.size, mtimeMs: info.mtimeMs });
      }),
    );
  }

  await visit(dir, '');
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

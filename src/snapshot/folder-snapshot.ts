import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { statInside } from '../catalog/safe-store-path.js';
import type { SnapshotDraft, SnapshotFileStream, SnapshotOutput } from './snapshot-output.js';

/**
 * The snapshot as a folder (the `fs` blob driver): each version is a folder under
 * `<dir>.versions/`, and `dir` is a symbolic link to the current one, replaced by renaming a
 * new link over it, so readers (and a web server serving the folder) always find a whole
 * snapshot. Showcase media is hard-linked (copied across file systems) from `dataDir`.
 */
export function folderSnapshot(dir: string, dataDir: string): SnapshotOutput {
  const versionsDir = `${dir}.versions`;
  const fileOf = (name: string, rel: string) => join(versionsDir, name, ...rel.split('/'));
  return {
    async begin(name): Promise<SnapshotDraft> {
      await mkdir(join(versionsDir, name, 'runs'), { recursive: true });
      return {
        writeText: (rel, text) => writeFile(fileOf(name, rel), text),
        async writeStream(rel, body: Readable) {
          const handle = await open(fileOf(name, rel), 'w');
          await pipeline(body, handle.createWriteStream());
        },
        async carry(blobKey, rel) {
          const from = join(dataDir, ...blobKey.split('/'));
          await mkdir(dirname(fileOf(name, rel)), { recursive: true });
          // Uploads replace files by rename, so a link never changes under a published snapshot.
          await link(from, fileOf(name, rel)).catch(() => copyFile(from, fileOf(name, rel)));
        },
        async carryFrom(from, rel) {
          await mkdir(dirname(fileOf(name, rel)), { recursive: true });
          // Versions are never written once published, so the two share the file safely.
          await link(fileOf(from, rel), fileOf(name, rel));
        },
      };
    },
    async publish(name) {
      const pointer = `${dir}.link-${randomUUID().slice(0, 8)}`;
      // Relative, so the data directory can move as a whole.
      await symlink(join(basename(versionsDir), name), pointer);
      try {
        const current = await lstat(dir).catch(() => null);
        let previous: string | null = null;
        if (current?.isSymbolicLink()) previous = basename(await readlink(dir));
        else if (current?.isDirectory()) {
          // A snapshot folder from before versions becomes one, once, so a rename can replace it with the link.
          previous = `legacy-${randomUUID().slice(0, 8)}`;
          await rename(dir, join(versionsDir, previous));
        }
        await rename(pointer, dir);
        return previous;
      } catch (error) {
        await rm(pointer, { force: true });
        throw error;
      }
    },
    async current() {
      const current = await lstat(dir).catch(() => null);
      return current?.isSymbolicLink() ? basename(await readlink(dir)) : null;
    },
    readText: (name, rel) => readFile(fileOf(name, rel), 'utf8').catch(() => null),
    discard: (name) => rm(join(versionsDir, name), { recursive: true, force: true }),
    versions: async () => (await readdir(versionsDir)).sort(),
  };
}

/**
 * The file a request path names inside the current folder snapshot, or null: the link is
 * resolved once, so one request reads one version even while a refresh swaps it; then the
 * definition store's own check (`statInside`), so never a directory (no listings), never
 * `.`/`..`/empty segments, and never anything a link resolves to outside the version.
 */
export async function folderSnapshotFile(dir: string, relative: string): Promise<SnapshotFileStream | null> {
  const file = await folderSnapshotStat(dir, relative);
  return file ? { body: createReadStream(file.path), size: file.size } : null;
}

/** That file's path and size, or null: refused, missing, or no snapshot yet, not found either way. */
export async function folderSnapshotStat(dir: string, relative: string): Promise<{ path: string; size: number } | null> {
  return statInside(await realpath(dir), relative, { fromUrl: false }).catch(() => null);
}

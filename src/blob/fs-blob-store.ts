import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, readFile, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { statInside } from '../catalog/safe-store-path.js';
import { unprocessable } from '../errors.js';
import { isBlobKey, TEMPORARY_MARK, type BlobStore, type BlobStream, type StagedBlob } from './blob-store.js';

/**
 * The `fs` driver: key `a/b/c` is the file `<root>/a/b/c`, so with `DATA_DIR` as the root
 * the layout is the one the service always had. A key's first segment is its area
 * (`run-media`, ...) and confines it: a read or write whose real path leaves
 * `<root>/<area>` (a symlink planted there) is refused like a missing file. Writes go to a
 * temporary name in the area and are renamed into place, so a reader never sees half a file.
 */
export function fsBlobStore(root: string): BlobStore {
  const pathOf = (key: string) => join(root, ...key.split('/'));
  const areaOf = (key: string) => join(root, key.split('/')[0]!);

  /** The file to read, or null: missing, a folder, not a key, or a link out of its area. */
  async function resolved(key: string): Promise<{ path: string; size: number } | null> {
    if (!isBlobKey(key) || !key.includes('/')) return null;
    const [area, ...rest] = key.split('/');
    return statInside(join(root, area!), rest.join('/'), { fromUrl: false }).catch(() => null);
  }

  /** Makes the key's folder and checks that it really lies where the key says (no link out of the area). */
  async function folderFor(key: string): Promise<string> {
    if (!isBlobKey(key) || !key.includes('/')) throw new Error(`Refusing blob key ${JSON.stringify(key.slice(0, 200))}.`);
    const folder = dirname(pathOf(key));
    await mkdir(folder, { recursive: true });
    const [real, area] = await Promise.all([realpath(folder), realpath(areaOf(key))]);
    const rest = key.split('/').slice(1, -1);
    if (real !== join(area, ...rest) || area !== join(await realpath(root), key.split('/')[0]!)) {
      throw unprocessable(`The folder of ${key} is a link out of the file store; nothing was written.`);
    }
    return folder;
  }

  async function stageFile(key: string, write: (temp: string) => Promise<void>): Promise<StagedBlob> {
    await folderFor(key);
    const temp = join(areaOf(key), `${TEMPORARY_MARK}${randomUUID()}`);
    try {
      await write(temp);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return {
      commit: () => rename(temp, pathOf(key)),
      discard: () => rm(temp, { force: true }),
    };
  }

  return {
    driver: 'fs',
    location: root,
    async put(key, body) {
      const staged = await stageFile(key, (temp) => writeNew(temp, body));
      await staged.commit();
    },
    stage: (key, body) =>
      stageFile(key, async (temp) => {
        // Created before the copy starts: a write stream opens its file lazily, so a copy that
        // fails at once could settle before the file exists and the cleanup would miss it.
        const handle = await open(temp, 'wx');
        await pipeline(body, handle.createWriteStream());
      }),
    async read(key) {
      const file = await resolved(key);
      return file ? readFile(file.path).catch(() => null) : null;
    },
    async open(key): Promise<BlobStream | null> {
      const file = await resolved(key);
      return file ? { body: createReadStream(file.path) as Readable, size: file.size } : null;
    },
    async stat(key) {
      const file = await resolved(key);
      return file ? { size: file.size } : null;
    },
    exists: async (key) => (await resolved(key)) !== null,
    async list(prefix) {
      if (!isBlobKey(prefix)) return [];
      const keys: string[] = [];
      for (const entry of await readdir(pathOf(prefix), { recursive: true, withFileTypes: true }).catch(() => [])) {
        if (!entry.isFile()) continue;
        const rel = join(entry.parentPath, entry.name).slice(pathOf(prefix).length + 1).split(/[\\/]/).join('/');
        if (isBlobKey(`${prefix}/${rel}`)) keys.push(`${prefix}/${rel}`);
      }
      return keys.sort();
    },
    async folders(prefix) {
      if (!isBlobKey(prefix)) return [];
      const entries = await readdir(pathOf(prefix), { withFileTypes: true }).catch(() => []);
      return entries.filter((entry) => entry.isDirectory() && isBlobKey(`${prefix}/${entry.name}`)).map((entry) => entry.name).sort();
    },
    async copy(from, to) {
      const source = await resolved(from);
      if (!source) throw new Error(`No blob ${JSON.stringify(from.slice(0, 200))} to copy.`);
      // Writers replace files by rename, so a link never changes under its copy.
      const staged = await stageFile(to, (temp) => link(source.path, temp).catch(() => copyFile(source.path, temp)));
      await staged.commit();
    },
    async remove(prefix) {
      if (!isBlobKey(prefix) || !prefix.includes('/')) throw new Error(`Refusing to remove blob prefix ${JSON.stringify(prefix.slice(0, 200))}.`);
      await rm(pathOf(prefix), { recursive: true, force: true });
    },
    close() {},
  };
}

async function writeNew(path: string, body: Buffer | string): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(body);
  } finally {
    await handle.close();
  }
}

import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { walkVersionFiles, type VersionFile } from './walk-version-files.js';

// Files up to this size are read whole, which is faster than a stream for the small text
// files a catalog is made of; larger ones (videos) stream so memory stays flat.
const WHOLE_READ_LIMIT = 1024 * 1024;
// How many files are read ahead of the one being hashed.
const READ_AHEAD = 16;

/**
 * SHA-256 over every file's path, size and bytes, in sorted order: equal for two folders
 * exactly when ingest would store the same thing. Hex.
 */
export async function contentHash(dir: string, checkoutRoot: string): Promise<string> {
  return hashFiles(await walkVersionFiles(dir, checkoutRoot));
}

export async function hashFiles(files: readonly VersionFile[]): Promise<string> {
  const hash = createHash('sha256');
  // Reads settle into values, never rejections: a read-ahead that fails while an earlier
  // file is being hashed must not surface as an unhandled rejection.
  type Loaded = { bytes?: Buffer; error?: unknown };
  const load = (file: VersionFile | undefined): Promise<Loaded> =>
    file && file.size <= WHOLE_READ_LIMIT
      ? readFile(file.absolute).then((bytes) => ({ bytes }), (error: unknown) => ({ error }))
      : Promise.resolve({});
  const pending = files.slice(0, READ_AHEAD).map(load);
  for (let i = 0; i < files.length; i += 1) {
    const file = files[i]!;
    const loaded = await pending[i]!;
    pending.push(load(files[i + READ_AHEAD]));
    if (loaded.error) throw loaded.error;
    // NUL cannot occur in a path, so the path/size header cannot be forged by a name.
    hash.update(`${file.key}\0${file.size}\0`);
    if (loaded.bytes) hash.update(loaded.bytes);
    else await streamInto(hash, file.absolute);
  }
  return hash.digest('hex');
}

/**
 * A cheap stand-in for the content hash: path, size and mtime of every file. Equal
 * fingerprints mean the folder is unchanged for all practical purposes (a same-size edit
 * within the mtime resolution is the blind spot), so ingest compares it first and hashes
 * only folders whose fingerprint moved. Hex.
 */
export async function statFingerprint(dir: string, checkoutRoot: string): Promise<string> {
  return fingerprintFiles(await walkVersionFiles(dir, checkoutRoot));
}

export function fingerprintFiles(files: readonly VersionFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.key}\0${file.size}\0${file.mtimeMs}\n`);
  return hash.digest('hex');
}

async function streamInto(hash: Hash, path: string): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

import { createHash, type Hash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { walkVersionFiles, type VersionFile } from './walk-version-files.js';

// Files up to this size are read whole and synchronously, several times faster than
// promise reads for the small text files a catalog is made of; larger ones (videos) stream
// so memory stays flat.
const WHOLE_READ_LIMIT = 1024 * 1024;
// Yield to the event loop after this many bytes read synchronously (~a few ms of work).
const BYTES_PER_YIELD = 4 * 1024 * 1024;
const FILES_PER_YIELD = 128;

/**
 * SHA-256 over every file's path, size and bytes, in sorted order: equal for two folders
 * exactly when ingest would store the same thing. Hex.
 */
export async function contentHash(dir: string, checkoutRoot: string): Promise<string> {
  return hashFiles(await walkVersionFiles(dir, checkoutRoot));
}

export async function hashFiles(files: readonly VersionFile[]): Promise<string> {
  const hash = createHash('sha256');
  let bytesSinceYield = 0;
  let filesSinceYield = 0;
  for (const file of files) {
    // NUL cannot occur in a path, so the path/size header cannot be forged by a name.
    hash.update(`${file.key}\0${file.size}\0`);
    if (file.size > WHOLE_READ_LIMIT) {
      await streamInto(hash, file.absolute);
      continue;
    }
    hash.update(readFileSync(file.absolute));
    bytesSinceYield += file.size;
    if (bytesSinceYield >= BYTES_PER_YIELD || ++filesSinceYield >= FILES_PER_YIELD) {
      bytesSinceYield = 0;
      filesSinceYield = 0;
      await yieldToEventLoop();
    }
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

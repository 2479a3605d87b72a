import { realpath } from 'node:fs/promises';
import { contentTypeFor } from '../catalog/content-type-for.js';
import { statInside } from '../catalog/safe-store-path.js';

/**
 * The path this service serves the snapshot under: SNAPSHOT_URL's path without its
 * trailing slash. A root path (or no SNAPSHOT_URL) means the snapshot is hosted elsewhere
 * (the deploy hook's business), since this service's root is the API.
 */
export function snapshotServePrefix(snapshotUrl: string | null): string | null {
  if (!snapshotUrl) return null;
  const path = new URL(snapshotUrl).pathname.replace(/\/+$/, '');
  return path === '' ? null : path;
}

export interface SnapshotFile {
  path: string;
  size: number;
  contentType: string;
}

/**
 * The file a request path names inside the current snapshot version, or null: the snapshot
 * link is resolved once, so one request reads one version even while a refresh swaps it;
 * then the definition store's own check (`statInside`), so never a directory (no
 * listings), never `.`/`..`/empty segments, and never anything a link resolves to outside
 * the version. The path is taken as the router decoded it: snapshot file names are
 * themselves percent-encoded run ids.
 */
export async function snapshotFile(dir: string, relative: string): Promise<SnapshotFile | null> {
  try {
    const { path, size } = await statInside(await realpath(dir), relative, { fromUrl: false });
    return { path, size, contentType: contentTypeFor(path) };
  } catch {
    return null; // refused, missing, or no snapshot yet: not found either way
  }
}

/**
 * Headers for public media and snapshot files served from the API's origin: the type comes
 * from the extension and is not to be sniffed, and a document (an SVG opened directly) runs
 * sandboxed so uploaded markup cannot script this origin.
 */
export function publicFileHeaders(file: { size: number; contentType: string }): Record<string, string | number> {
  return {
    'content-type': file.contentType,
    'content-length': file.size,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
  };
}

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

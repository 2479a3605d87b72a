import { join } from 'node:path';
import { statInside } from '../catalog/safe-store-path.js';

const PLAIN_SEGMENT = /^(?!\.{1,2}$)[^/\\\0]+$/;

/**
 * A run's media folder, `<mediaDir>/<run id>`. Null when the id could leave `mediaDir` (a
 * separator, `.` or `..`): run ids are driver-chosen, so every path built from one goes
 * through here.
 */
export function runMediaPath(mediaDir: string, runId: string): string | null {
  return PLAIN_SEGMENT.test(runId) ? join(mediaDir, runId) : null;
}

/**
 * Names a driver may give an uploaded showcase file: letters, digits, `.`, `_` and `-`,
 * starting with a letter or digit (so no dot-files and nothing a shell or URL reads
 * specially), at most 200 characters.
 */
const UPLOAD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export const isShowcaseUploadName = (file: string) => UPLOAD_NAME.test(file);

/**
 * Where a run's showcase file is stored: `<mediaDir>/<run id>/showcase/<file>`. Null when
 * either name could leave that folder, so a request cannot reach another run's media or
 * anything else on disk.
 */
export function showcasePath(mediaDir: string, runId: string, file: string): string | null {
  const runDir = runMediaPath(mediaDir, runId);
  return runDir && PLAIN_SEGMENT.test(file) ? join(runDir, 'showcase', file) : null;
}

/**
 * The stored showcase file to serve, or null. Resolved with the store's own check, so a
 * symlink planted under `mediaDir` whose real path leaves it (a link to `/etc/passwd`,
 * or a run folder linked elsewhere) is refused like a missing file.
 */
export async function storedShowcaseFile(mediaDir: string, runId: string, file: string): Promise<{ path: string; size: number } | null> {
  // Dot-names are never showcase media (uploads refuse them); they are temporaries or planted.
  if (!showcasePath(mediaDir, runId, file) || file.startsWith('.')) return null;
  return statInside(mediaDir, `${runId}/showcase/${file}`, { fromUrl: false }).catch(() => null);
}

/** `DATA_DIR/run-media`: a run's stored media, one folder per run id. */
export const runMediaDir = (dataDir: string) => join(dataDir, 'run-media');

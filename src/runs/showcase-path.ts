import { join } from 'node:path';

const PLAIN_SEGMENT = /^(?!\.{1,2}$)[^/\\\0]+$/;

/**
 * Where a run's showcase file is stored: `<mediaDir>/<run id>/showcase/<file>`. Null when
 * either name could leave that folder (a separator, `.` or `..`), so a request cannot
 * reach another run's media or anything else on disk.
 */
export function showcasePath(mediaDir: string, runId: string, file: string): string | null {
  if (!PLAIN_SEGMENT.test(runId) || !PLAIN_SEGMENT.test(file)) return null;
  return join(mediaDir, runId, 'showcase', file);
}

/** `DATA_DIR/run-media`: a run's stored media, one folder per run id. */
export const runMediaDir = (dataDir: string) => join(dataDir, 'run-media');

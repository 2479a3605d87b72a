import { join } from 'node:path';

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
 * Where a run's showcase file is stored: `<mediaDir>/<run id>/showcase/<file>`. Null when
 * either name could leave that folder, so a request cannot reach another run's media or
 * anything else on disk.
 */
export function showcasePath(mediaDir: string, runId: string, file: string): string | null {
  const runDir = runMediaPath(mediaDir, runId);
  return runDir && PLAIN_SEGMENT.test(file) ? join(runDir, 'showcase', file) : null;
}

/** `DATA_DIR/run-media`: a run's stored media, one folder per run id. */
export const runMediaDir = (dataDir: string) => join(dataDir, 'run-media');

import { isBlobKey } from '../blob/blob-store.js';

/** The blob store's area for runs' media: `DATA_DIR/run-media` on the `fs` driver. */
export const RUN_MEDIA_AREA = 'run-media';

/**
 * A run's media prefix in the blob store, `run-media/<run id>`. Null when the id is not one
 * plain segment (a separator, `.`/`..`, a dot-name): run ids are driver-chosen, so every key
 * built from one goes through here.
 */
export function runMediaKey(runId: string): string | null {
  const key = `${RUN_MEDIA_AREA}/${runId}`;
  return !runId.includes('/') && isBlobKey(key) ? key : null;
}

/**
 * Names a driver may give an uploaded showcase file: letters, digits, `.`, `_` and `-`,
 * starting with a letter or digit (so no dot-files and nothing a shell or URL reads
 * specially), at most 200 characters.
 */
const UPLOAD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export const isShowcaseUploadName = (file: string) => UPLOAD_NAME.test(file);

/**
 * Where a run's showcase file is stored: `run-media/<run id>/showcase/<file>`. Null when
 * either name could leave that prefix or is not a name an upload may have, so a request
 * cannot reach another run's media, a temporary, or anything else in the store.
 */
export function showcaseKey(runId: string, file: string): string | null {
  const runKey = runMediaKey(runId);
  return runKey && isShowcaseUploadName(file) ? `${runKey}/showcase/${file}` : null;
}

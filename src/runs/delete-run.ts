import type { BlobStore } from '../blob/blob-store.js';
import { notFound, unprocessable } from '../errors.js';
import type { ArtifactService } from './artifact-service.js';
import type { RunRows } from './run-rows.js';
import { runMediaKey } from './showcase-path.js';

export interface DeleteRunDeps {
  rows: RunRows;
  artifacts: ArtifactService;
  /** Holds the run's uploaded media under `run-media/<id>`. */
  blobs: BlobStore;
  requestSnapshot(): Promise<void>;
  onWarning(message: string): void;
}

/**
 * `DELETE /runs/{id}`: removes the record, its reviews, publish jobs, links and stored media
 * (one transaction for the rows, after the media), then asks the artifact service to prune the run's tree.
 * A published run is refused unless its record is unreadable by this build.
 */
export async function deleteRun(deps: DeleteRunDeps, id: string): Promise<{ id: string; deleted: true }> {
  const row = await deps.rows.get(id);
  if (!row) throw notFound(`No run ${id}.`);
  if (row.published === 1 && row.decode_error === null) throw unprocessable(`Run ${id} is published; a published run cannot be deleted.`);
  // The media first: a bucket out of reach refuses the delete (503) before any row goes,
  // so a retry finds the run and nothing is orphaned.
  const media = runMediaKey(id);
  if (media) await deps.blobs.remove(media);
  await deps.rows.remove(id);
  if (row.published === 1) await deps.requestSnapshot().catch(() => deps.onWarning('snapshot refresh request after a delete failed'));
  const pruned = await deps.artifacts.prune(id);
  if (pruned !== 'pruned' && pruned !== 'skipped') deps.onWarning(`artifact prune of run ${id}: the artifact service ${pruned}; a later sweep reclaims it`);
  return { id, deleted: true };
}

import { rm } from 'node:fs/promises';
import { notFound, unprocessable } from '../errors.js';
import type { ArtifactService } from './artifact-service.js';
import type { RunRows } from './run-rows.js';
import { runMediaPath } from './showcase-path.js';

export interface DeleteRunDeps {
  rows: RunRows;
  artifacts: ArtifactService;
  /** `DATA_DIR/run-media`: one folder per run id. */
  mediaDir: string;
  requestSnapshot(): Promise<void>;
  onWarning(message: string): void;
}

/**
 * `DELETE /runs/{id}`: removes the record, its reviews, publish jobs, links and stored media
 * (one transaction for the rows), then asks the artifact service to prune the run's tree.
 * A published run is refused unless its record is unreadable by this build.
 */
export async function deleteRun(deps: DeleteRunDeps, id: string): Promise<{ id: string; deleted: true }> {
  const row = await deps.rows.get(id);
  if (!row) throw notFound(`No run ${id}.`);
  if (row.published === 1 && row.decode_error === null) throw unprocessable(`Run ${id} is published; a published run cannot be deleted.`);
  await deps.rows.remove(id);
  const media = runMediaPath(deps.mediaDir, id);
  if (media) await rm(media, { recursive: true, force: true });
  if (row.published === 1) await deps.requestSnapshot().catch(() => deps.onWarning('snapshot refresh request after a delete failed'));
  const pruned = await deps.artifacts.prune(id);
  if (pruned !== 'pruned' && pruned !== 'skipped') deps.onWarning(`artifact prune of run ${id}: the artifact service ${pruned}; a later sweep reclaims it`);
  return { id, deleted: true };
}

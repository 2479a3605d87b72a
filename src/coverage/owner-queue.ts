import { MAX_QUEUE_RUNS } from '../contract/vocabulary.js';
import { ggRef } from './coverage-cells.js';
import { uniqueCells, type OwnedCell, type OwnerContext } from './schedule-owner.js';

/**
 * `GET …/queue`: the requester's unreviewed completed runs of the covered cells, cell by cell
 * in emission order (each cell once, so each run once), oldest first within a cell, at most
 * `limit`, with `truncated` when more wait. `skipUnloaded` leaves out unloaded builds a
 * ladder's gate already rated broken.
 */
export async function ownerQueue(
  ctx: OwnerContext, review: Array<Pick<OwnedCell, 'cell' | 'rungId'>>, reviewerId: string, limit = MAX_QUEUE_RUNS, skipUnloaded = false,
) {
  const cells = uniqueCells(review);
  const rows = await ctx.counter.unreviewedRuns(cells.map((owned) => owned.cell), reviewerId, limit + 1, skipUnloaded);
  const runs = rows.slice(0, limit).map(({ cell, run }) => {
    const owned = cells[cell]!;
    return {
      runId: run.runId,
      ...(owned.rungId === undefined ? {} : { rungId: owned.rungId }),
      slug: run.slug,
      version: run.version,
      variant: run.variant,
      engine: run.engine,
      harness: run.harness,
      model: run.model,
      ...ggRef(owned.cell.combination),
      finishedAt: run.finishedAt,
    };
  });
  return { runs, truncated: rows.length > limit };
}

/**
 * The top-up's walk: which cells of an owner to launch now, prepared and not yet written.
 * It walks the feedable cells in order and takes whole cells while occupancy is below the
 * target; the cell that crosses it may overshoot (a cell is never split). It makes two
 * passes: the first takes only cells whose harness has a free parallelism slot (its jobs in
 * flight, from any origin and from this walk, below its cap), the second the cells the first
 * deferred, in order; so a capped harness never soaks up the buffer while the others sit idle.
 */
import type { LaunchBodyT } from '../contract/jobs.js';
import { HttpError } from '../errors.js';
import { prepareLaunch, type PreparedLaunch } from '../jobs/enqueue-runs.js';
import type { JobsContext } from '../jobs/jobs-context.js';
import { MILLISECOND } from '../time.js';
import { hasRoom, type BufferTarget } from './buffer-target.js';
import type { HarnessLoad } from './cell-counts.js';
import { cellRef, type CoverageCell } from './coverage-cells.js';
import { occupancyOf, remainingOf, uniqueCells, type MeasuredOwner, type OwnedCell } from './schedule-owner.js';

type CellAnswer = ReturnType<typeof cellRef> & { rungId?: string };

/** What a top-up did, in the console's names (the original's `TopUpResult`). */
export interface TopUpResult {
  bufferTarget: BufferTarget;
  /** The occupancy the walk started from; absent when it never ran. */
  outstanding?: number;
  enqueued: number;
  cells: Array<CellAnswer & { runs: number; jobIds: string[] }>;
  unlaunchable: Array<CellAnswer & { reason: string }>;
  skipped?: 'busy' | 'paused';
}

export const answerOf = ({ cell, rungId }: OwnedCell): CellAnswer => ({ ...(rungId === undefined ? {} : { rungId }), ...cellRef(cell) });

/** The launch body of one run of a cell, on the cell's engine, with the model its harness launches. */
function launchBody({ pin, combination }: CoverageCell): LaunchBodyT {
  return {
    testCase: pin.slug,
    version: pin.version,
    variant: pin.variant,
    harness: combination.harness,
    model: combination.launchModel,
    engine: pin.engine === 'none' ? null : pin.engine,
    ...(combination.provider ? { provider: combination.provider } : {}),
    ...(combination.gg ? { presetId: combination.gg.configId } : {}),
  };
}

/**
 * How long a top-up's walk goes between asking whether its owner is still fed. The caller
 * asks once more right before it commits, so this only bounds how long a halt waits for a
 * walk to give up: a walk held up by a slow cell (a price fetched from the routing provider)
 * asks after that cell; one that prepares hundreds of cells in a few milliseconds does not
 * ask the store once per cell (500 reads, most of a top-up's time on PostgreSQL).
 */
const FED_CHECK_INTERVAL_MS = 50 * MILLISECOND;

/**
 * Chooses and prepares the cells to launch; nothing is written. Every feedable cell whose
 * member cannot be launched and still misses runs is reported, whatever the buffer (a bound of
 * 0 included). `stillFed` is asked before a cell once `FED_CHECK_INTERVAL_MS` has passed since
 * the walk started or last asked: false (a halt paused the owner) stops the walk, and the
 * answer is null. `harnesses` is the capped harnesses' load (none: no caps).
 */
export async function prepareTopUp(
  ctx: JobsContext, accountId: string, origin: string, target: BufferTarget, measured: MeasuredOwner, stillFed: () => Promise<boolean>,
  harnesses: HarnessLoad = new Map(),
) {
  const outstanding = occupancyOf(measured.review);
  const unlaunchable: TopUpResult['unlaunchable'] = [];
  for (const owned of measured.feed) {
    if (owned.unlaunchable !== null && remainingOf(owned.cell, owned.counts) > 0) unlaunchable.push({ ...answerOf(owned), reason: owned.unlaunchable });
  }
  const admissions = new Map<string, ReturnType<JobsContext['models']['admit']>>();
  const chosen: Array<{ owned: OwnedCell; launches: PreparedLaunch[] }> = [];
  let occupancy = outstanding;
  // A copy: what this walk launches fills its harness's slots for the rest of the walk.
  const load = new Map([...harnesses].map(([slug, { cap, inFlight }]) => [slug, { cap, inFlight }]));
  const cells = uniqueCells(measured.feed);
  const tried = new Set<OwnedCell>();
  let askedAt = performance.now();
  for (const slotsOnly of [true, false]) {
    for (const owned of cells) {
      if (!hasRoom(target, occupancy)) break;
      const remaining = remainingOf(owned.cell, owned.counts);
      if (remaining === 0 || owned.unlaunchable !== null || tried.has(owned)) continue;
      const harness = load.get(owned.cell.combination.harness);
      if (slotsOnly && harness !== undefined && harness.inFlight >= harness.cap) continue;
      tried.add(owned);
      if (performance.now() - askedAt >= FED_CHECK_INTERVAL_MS) {
        if (!(await stillFed())) return null;
        askedAt = performance.now();
      }
      const body = launchBody(owned.cell);
      const launches: PreparedLaunch[] = [];
      try {
        for (let i = 0; i < remaining; i++) {
          launches.push(await prepareLaunch(ctx, accountId, body, { origin }, admissions, owned.cell.combination.gg ?? undefined));
        }
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        unlaunchable.push({ ...answerOf(owned), reason: error.message });
        continue;
      }
      chosen.push({ owned, launches });
      occupancy += remaining;
      if (harness !== undefined) harness.inFlight += remaining;
    }
  }
  return { outstanding, chosen, unlaunchable };
}

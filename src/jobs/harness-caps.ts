import { LAUNCHABLE_HARNESSES } from '../contract/jobs.js';
import type { harnessConfigTable } from '../db/harness-config-table.js';
import { notFound } from '../errors.js';
import { HARNESS_NAMES } from './harness-names.js';
import { announceWaiting, type JobsContext } from './jobs-context.js';

export type HarnessConfigTable = ReturnType<typeof harnessConfigTable>;

/** `GET /harness-config`: every launchable harness with its display name and cap (null: uncapped). */
export async function listHarnessConfig(table: HarnessConfigTable) {
  const caps = await table.caps();
  return { harnesses: LAUNCHABLE_HARNESSES.map((slug) => ({ slug, name: HARNESS_NAMES[slug], maxParallelism: caps.get(slug) ?? null })) };
}

/**
 * `PUT` (or `POST`) `/harness-config/{slug}`: stores the cap, then applies it in Redis, which
 * releases the held jobs a raised or removed cap admits (oldest first, each announced as
 * `queued`). The revision the store gives the write lets Redis refuse an older write that
 * arrives after a newer one, so concurrent writes leave the store and Redis agreeing on the
 * last. Answers the whole list, as the console redraws its table from it.
 */
export async function setHarnessCap(ctx: JobsContext, table: HarnessConfigTable, slug: string, maxParallelism: number | null) {
  if (!(LAUNCHABLE_HARNESSES as readonly string[]).includes(slug)) throw notFound(`No harness "${slug}".`);
  const revision = await table.set(slug, maxParallelism);
  await announceWaiting(ctx, await ctx.queue.setCap(slug, maxParallelism, revision), 'queued');
  return listHarnessConfig(table);
}

import { isTerminal } from '../queue/run-queue.js';
import type { JobsContext } from './jobs-context.js';

/**
 * `POST /jobs/{id}/events` (the driver): appends normalized events to the job's live
 * backlog, where live followers pick them up and the terminal report collects them for the
 * record store. Events relayed after the job finished are discarded.
 */
export async function relayJobEvents(ctx: JobsContext, id: string, events: unknown[]): Promise<void> {
  const job = ctx.jobs.get(id);
  if (!job || isTerminal(job.state)) return;
  await ctx.queue.appendLive(id, events.map((event) => JSON.stringify(event)));
}

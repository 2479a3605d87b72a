import { payloadTooLarge } from '../errors.js';
import { isTerminal } from '../queue/run-queue.js';
import type { JobsContext } from './jobs-context.js';

/**
 * `POST /jobs/{id}/events` (the driver): appends normalized events to the job's live
 * backlog, where live followers pick them up and the terminal report collects them for the
 * record store (previews left out, see `storedEvents`). Events relayed after the job
 * finished are discarded.
 */
export async function relayJobEvents(ctx: JobsContext, id: string, events: unknown[]): Promise<void> {
  const job = await ctx.jobs.get(id);
  if (!job || isTerminal(job.state)) return;
  const lines = events.map((event) => JSON.stringify(event));
  lines.forEach((line, index) => {
    const bytes = Buffer.byteLength(line);
    if (bytes > LIVE_EVENT_MAX_BYTES) {
      throw payloadTooLarge(`body[${index}] is ${bytes} bytes as JSON; one relayed event may be at most ${LIVE_EVENT_MAX_BYTES} bytes.`);
    }
  });
  await ctx.queue.appendLive(id, lines);
}

/** Largest relayed event, as JSON text (bytes): a live follower's memory is bounded by pages of these. */
export const LIVE_EVENT_MAX_BYTES = 256 * 1024;

/** The event type of a preview a driver relays while a run works: for live followers only. */
const PREVIEW_EVENT_TYPE = 'asset_preview';

/**
 * The relayed event lines stored with a run's record: all but previews, which, as in the
 * original system, show on the live stream and are not part of the run's recorded events.
 */
export function storedEvents(lines: readonly string[]): string[] {
  return lines.filter((line) => !line.includes(PREVIEW_EVENT_TYPE) || !isPreview(line));
}

function isPreview(line: string): boolean {
  try {
    const event = JSON.parse(line) as unknown;
    return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === PREVIEW_EVENT_TYPE;
  } catch {
    return false;
  }
}

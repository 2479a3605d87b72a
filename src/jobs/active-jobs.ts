import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ActiveJobRow, JobsTable } from '../db/jobs-table.js';
import { keysetPages } from '../db/keyset-pages.js';
import { runSubject } from '../events/run-events.js';

/**
 * Jobs read per page. Read at once, the active list of 100,000 queued jobs held the event
 * loop for 2.4 s and took 500 MB; the list has no bound but the queue's.
 */
const JOBS_PER_PAGE = 500;

/** One entry of the active list: the run's subject, its state, origin and times. */
const activeJobJson = (job: ActiveJobRow) =>
  JSON.stringify({ ...runSubject(job), state: job.state, origin: job.origin, enqueuedAt: job.enqueuedAt, startedAt: job.startedAt });

/**
 * `GET /jobs/active` as JSON text, `{ "jobs": [...] }`, every non-terminal job in queue
 * order, a page at a time after the last job of the previous page, the event loop turning
 * between pages. Pages are read as the response is taken, so a client that reads slowly
 * holds one page, not the list. A job enqueued meanwhile is listed at the end; one that
 * finishes meanwhile may or may not be, as its page was read before or after.
 */
export async function* activeJobsJson(jobs: Pick<JobsTable, 'activeList'>): AsyncGenerator<string> {
  yield '{"jobs":[';
  let first = true;
  for await (const page of keysetPages<ActiveJobRow>((last) => jobs.activeList({ after: last?.seq, limit: JOBS_PER_PAGE }), JOBS_PER_PAGE)) {
    if (!first) await yieldToEventLoop();
    yield `${first ? '' : ','}${page.map(activeJobJson).join(',')}`;
    first = false;
  }
  yield ']}';
}

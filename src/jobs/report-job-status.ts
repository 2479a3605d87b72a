import type { StatusUpdateT } from '../contract/jobs.js';
import { conflict, notFound, unprocessable } from '../errors.js';
import { runEventJson } from '../events/run-events.js';
import { isTerminal } from '../queue/run-queue.js';
import { recordFinished, type JobsContext } from './jobs-context.js';
import { storedEvents } from './relay-job-events.js';

/**
 * `POST /jobs/{id}/status` (the driver, with its per-job token): applies the transition
 * table. The Redis script decides atomically; this records the decision in the store, hands a
 * record to the record store, and announces the transition.
 */
export async function reportJobStatus(ctx: JobsContext, id: string, update: StatusUpdateT): Promise<void> {
  const { state } = update;
  const record = update.record ?? null;
  const detail = update.detail ?? null;
  if (state === 'succeeded' && !record) throw unprocessable('A succeeded status must carry the run record.');
  if (state === 'canceled' && !record) throw unprocessable('A canceled status must carry the partial run record.');

  let recordId: string | null = null;
  if (record && (state === 'succeeded' || state === 'failed' || state === 'canceled')) {
    // The record is stored before the transition so the `finished` event can name it. A
    // report that then loses a race with a cancel leaves an unattached record behind.
    const current = (await ctx.queue.states([id]))[0];
    const storable = current && (state === 'canceled' ? current.state === 'canceled' : !isTerminal(current.state) || current.state === state);
    if (storable) recordId = (await ctx.records.store(id, record, storedEvents(await ctx.queue.liveEvents(id)))).recordId;
  }

  const result = await ctx.queue.report(id, state, { detail, recordId });
  const now = new Date().toISOString();
  switch (result.outcome) {
    case 'applied': {
      if (state === 'starting' || state === 'running') {
        await ctx.copier.copy([{ id, state, at: now }]);
        ctx.bus.publishRun(runEventJson('state-changed', state, result.subjectJson));
        return;
      }
      if (state === 'canceled') return; // a `canceled` report only ever attaches
      await recordFinished(ctx, [{ id, state, detail, recordId, subjectJson: result.subjectJson }], result.released, now);
      return;
    }
    case 'same':
      // A retried terminal report whose first attempt stored nothing attaches its record now.
      if (recordId && !(await ctx.jobs.get(id))?.recordId) await ctx.jobs.attachRecord(id, recordId);
      return;
    case 'attached':
      if (recordId) await ctx.jobs.attachRecord(id, recordId);
      return;
    case 'discarded':
      return;
    case 'backward':
      throw conflict(`Job ${id} is ${result.previous}; it cannot go back to ${state}.`);
    case 'unclaimed':
      throw conflict(`Job ${id} is ${result.previous}: no dispatcher has claimed it.`);
    case 'terminal':
      throw conflict(`Job ${id} already ${result.previous}.`);
    case 'not-canceled':
      throw conflict(`Job ${id} is ${result.previous}, not canceled; only a canceled job takes a canceled status.`);
    case 'missing': {
      const job = await ctx.jobs.get(id);
      if (!job) throw notFound(`No job ${id}.`);
      if (job.state === 'canceled' && state !== 'canceled') return;
      throw conflict(`Job ${id} already ${job.state}.`);
    }
  }
}

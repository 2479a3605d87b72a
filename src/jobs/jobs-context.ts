import { hash } from 'node:crypto';
import type { GgConfigsTable } from '../db/gg-configs-table.js';
import type { JobsTable } from '../db/jobs-table.js';
import type { ConsoleEventBus } from '../events/console-event-bus.js';
import { runCompletedNotification, runEventJson } from '../events/run-events.js';
import type { MovedJob, RunQueue } from '../queue/run-queue.js';
import type { DispatchRecorder } from './dispatch-recorder.js';
import type { LaunchCatalog } from './launch-catalog.js';
import type { LaunchModels } from './launch-models.js';
import type { RunRecordSink } from './run-record-sink.js';

export interface JobsLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Everything the job services work with; the jobs plugin builds one per app. */
export interface JobsContext {
  jobs: JobsTable;
  ggConfigs: GgConfigsTable;
  queue: RunQueue;
  bus: ConsoleEventBus;
  catalog: LaunchCatalog;
  models: LaunchModels;
  records: RunRecordSink;
  /** Copies claims to the store behind their answers (see dispatch-recorder.ts). */
  dispatches: DispatchRecorder;
  log: JobsLog;
}

export const sha256Hex = (text: string) => hash('sha256', text, 'hex');

/** What copies a script's decisions to the store and announces them; a background worker builds one too. */
export interface JobsRecorder {
  jobs: JobsTable;
  bus: Pick<ConsoleEventBus, 'publishRun' | 'publishNotification'>;
}

/**
 * Records queued <-> pending moves a script made and announces each as `state-changed`
 * (unless the script published them itself, as the claim script does).
 */
export async function announceWaiting(ctx: JobsRecorder, moved: MovedJob[], state: 'queued' | 'pending', published = false): Promise<void> {
  if (moved.length === 0) return;
  await ctx.jobs.markWaiting(moved.map((job) => job.id), state);
  if (!published) for (const job of moved) ctx.bus.publishRun(runEventJson('state-changed', state, job.subjectJson));
}

/**
 * Records a job a script ended (succeeded or failed from an active state): the store's row,
 * the `finished` run event, the held jobs its slots released, and the completion notification.
 */
export async function recordFinished(
  ctx: JobsRecorder,
  job: MovedJob & { state: 'succeeded' | 'failed'; detail: string | null; recordId: string | null },
  released: MovedJob[],
  now: string,
): Promise<void> {
  const { id, state, detail, recordId } = job;
  await ctx.jobs.markFinished(id, state, detail, recordId, now);
  ctx.bus.publishRun(runEventJson('finished', state, job.subjectJson, { recordId, detail }));
  await announceWaiting(ctx, released, 'queued');
  const row = await ctx.jobs.get(id);
  if (row) ctx.bus.publishNotification(runCompletedNotification(row, state, recordId, detail));
}

import { hash } from 'node:crypto';
import type { GgConfigsTable } from '../db/gg-configs-table.js';
import type { JobsTable } from '../db/jobs-table.js';
import type { ConsoleEventBus } from '../events/console-event-bus.js';
import { runCompletedNotification, runEventJson } from '../events/run-events.js';
import type { MovedJob, RunQueue } from '../queue/run-queue.js';
import type { DispatchRecorder } from './dispatch-recorder.js';
import type { JobStateCopier } from './job-state-copier.js';
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
  /** Copies every other state Redis decides to the store, retried (see job-state-copier.ts). */
  copier: JobStateCopier;
  log: JobsLog;
}

export const sha256Hex = (text: string) => hash('sha256', text, 'hex');

/** What copies a script's decisions to the store and announces them; a background worker builds one too. */
export interface JobsRecorder {
  copier: JobStateCopier;
  bus: Pick<ConsoleEventBus, 'publishRun' | 'publishNotification'>;
}

/**
 * Records queued <-> pending moves a script made and announces each as `state-changed`
 * (unless the script published them itself, as the claim script does).
 */
export async function announceWaiting(ctx: JobsRecorder, moved: MovedJob[], state: 'queued' | 'pending', published = false): Promise<void> {
  if (moved.length === 0) return;
  await ctx.copier.copy(moved.map((job) => ({ id: job.id, state })));
  if (!published) for (const job of moved) ctx.bus.publishRun(runEventJson('state-changed', state, job.subjectJson));
}

/** A job a script ended on its own (succeeded or failed from an active state). */
export type FinishedJob = MovedJob & { state: 'succeeded' | 'failed'; detail: string | null; recordId: string | null };

/**
 * Records jobs a script ended, with the held jobs their slots released, in one copy: the
 * store's rows, each one's `finished` run event, the releases' `state-changed`, and each
 * one's completion notification.
 */
export async function recordFinished(ctx: JobsRecorder, finished: FinishedJob[], released: MovedJob[], at: string): Promise<void> {
  if (finished.length + released.length === 0) return;
  await ctx.copier.copy([
    ...finished.map(({ id, state, detail, recordId }) => ({ id, state, detail, recordId, at })),
    ...released.map((job) => ({ id: job.id, state: 'queued' as const })),
  ]);
  for (const job of finished) ctx.bus.publishRun(runEventJson('finished', job.state, job.subjectJson, { recordId: job.recordId, detail: job.detail }));
  for (const job of released) ctx.bus.publishRun(runEventJson('state-changed', 'queued', job.subjectJson));
  for (const job of finished) ctx.bus.publishNotification(runCompletedNotification(job));
}

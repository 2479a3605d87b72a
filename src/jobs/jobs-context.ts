import { createHash } from 'node:crypto';
import type { GgConfigsTable } from '../db/gg-configs-table.js';
import type { JobsTable } from '../db/jobs-table.js';
import type { ConsoleEventBus } from '../events/console-event-bus.js';
import { runEventJson } from '../events/run-events.js';
import type { MovedJob, RunQueue } from '../queue/run-queue.js';
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
  /** Records a claim (by the job's `seq`) in SQLite, committed with the claims answered alongside it; resolves once committed. */
  recordDispatch: (seq: number, tokenHash: string) => Promise<void>;
  log: JobsLog;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Records queued <-> pending moves a script made and announces each as `state-changed`
 * (unless the script published them itself, as the claim script does).
 */
export function announceWaiting(ctx: JobsContext, moved: MovedJob[], state: 'queued' | 'pending', published = false): void {
  if (moved.length === 0) return;
  ctx.jobs.markWaiting(moved.map((job) => job.id), state);
  if (!published) for (const job of moved) ctx.bus.publishRun(runEventJson('state-changed', state, job.subjectJson));
}

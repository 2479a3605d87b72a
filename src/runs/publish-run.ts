import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';
import { Queue, type ConnectionOptions } from 'bullmq';
import { notFound, unprocessable } from '../errors.js';
import type { ArtifactService, ReleaseLinks } from './artifact-service.js';
import type { NotificationPublisher } from './notification-publisher.js';
import { publishGateRefusal, STALE_PUBLISH_JOB, type PublishJob, type PublishJobs } from './publish-jobs.js';
import type { PublishLine } from './publish-live.js';
import type { RunGrades } from './run-grades.js';
import type { RunRows } from './run-rows.js';
import { writeTransaction, type BackendStore } from '../db/dialect.js';

export const PUBLISH_QUEUE = BACKGROUND_QUEUES.publish;

export interface PublishPayload {
  publishJobId: string;
  runId: string;
}

export function createPublishQueue(connection: ConnectionOptions, prefix: string) {
  return new Queue<PublishPayload>(PUBLISH_QUEUE, { connection, prefix });
}

export const liveUrlOf = (publishJobId: string) => `/publish-jobs/${publishJobId}/live`;

export interface RequestPublishDeps {
  rows: RunRows;
  grades: RunGrades;
  jobs: PublishJobs;
  queue: Queue<PublishPayload>;
}

/** Queues a publish job under its own id: BullMQ adds nothing while a job of that id exists. */
const enqueuePublishJob = (queue: Queue<PublishPayload>, job: PublishJob) =>
  queue.add('publish', { publishJobId: job.id, runId: job.runId }, { jobId: job.id, attempts: 1, removeOnComplete: 1000, removeOnFail: 1000 });

/**
 * Queues again every live publish job younger than STALE_PUBLISH_JOB (an older one is
 * replaced by the next request anyway): after Redis lost its queue entry, the job would
 * otherwise hold its run, and keep its live stream open, for the rest of that hour. One
 * whose entry Redis still has is left as it is. Answers how many were live.
 */
export async function requeueLivePublishJobs(jobs: PublishJobs, queue: Queue<PublishPayload>, now = Date.now()): Promise<number> {
  const live = (await jobs.live()).filter((job) => now - job.createdMs < STALE_PUBLISH_JOB);
  for (const job of live) await enqueuePublishJob(queue, job);
  return live.length;
}

/**
 * `POST /runs/{id}/publish`: applies the gate, then claims the run's one live publish job
 * (an existing live job is answered again) and enqueues it under its own id.
 */
export async function requestPublish(deps: RequestPublishDeps, runId: string): Promise<{ publishJobId: string; liveUrl: string }> {
  const stored = await deps.rows.get(runId);
  if (!stored || stored.decode_error !== null) throw notFound(`No run ${runId}.`);
  const [row] = await deps.grades.freshen([stored]);
  if (row!.published === 1) {
    const done = await deps.jobs.latestSucceeded(runId);
    if (done) return { publishJobId: done.id, liveUrl: liveUrlOf(done.id) };
  }
  const refusal = publishGateRefusal(row!);
  if (refusal) throw unprocessable(refusal);

  const { job, created } = await deps.jobs.claim(runId);
  if (created) {
    try {
      await enqueuePublishJob(deps.queue, job);
    } catch (error) {
      // Without its queue entry the job would block the run for an hour; fail it so a retry can go at once.
      await deps.jobs.markFinished(job.id, 'failed', { detail: 'The publish job could not be enqueued.' });
      throw error;
    }
  }
  return { publishJobId: job.id, liveUrl: liveUrlOf(job.id) };
}

export interface PublisherDeps {
  /** The store `rows` and `jobs` write: a release's two writes commit together. */
  store: BackendStore;
  rows: RunRows;
  jobs: PublishJobs;
  artifacts: ArtifactService;
  notifications: NotificationPublisher;
  requestSnapshot(): Promise<void>;
  writeLine(publishJobId: string): (line: PublishLine) => Promise<void>;
  onError(error: unknown, context: string): void;
}

/**
 * The publisher: re-checks the run before any external work and skips a run already
 * published; a success flips the run public and ends the job in one transaction, then asks
 * for a snapshot refresh; a failure raises `publish-failed` on the console stream. Once the
 * run is published, nothing that follows (the refresh request, the live result line) can
 * turn the publish into a failure. Failures end the job here rather than through BullMQ
 * retries: a failed publish is retried by asking again.
 */
export async function runPublishJob(deps: PublisherDeps, { publishJobId, runId }: PublishPayload): Promise<void> {
  const write = deps.writeLine(publishJobId);
  const row = await deps.rows.get(runId);
  const commit = (links: ReleaseLinks) =>
    writeTransaction(deps.store, async (trx) => {
      await deps.rows.within(trx).markPublished({ id: runId, publishedAt: new Date().toISOString(), ...links });
      await deps.jobs.within(trx).markFinished(publishJobId, 'succeeded', links);
    });
  let links: ReleaseLinks;
  let releasedNow = false;
  try {
    await write({ type: 'progress', message: `Checking run ${runId}.` });
    if (!row || row.decode_error !== null) throw new Error(`Run ${runId} no longer exists or can no longer be read.`);
    links = { sourceRepo: row.link_source_repo, playableBuild: row.link_playable_build };
    if (row.published === 1) {
      await deps.jobs.markFinished(publishJobId, 'succeeded', links);
      await write({ type: 'progress', message: 'The run is already published; nothing to release.' }).catch(() => undefined);
    } else {
      if (deps.artifacts.releases) {
        await write({ type: 'progress', message: 'Releasing the source repository and playable build through the artifact service.' });
        const released = await deps.artifacts.release(runId);
        links = { sourceRepo: released.sourceRepo ?? links.sourceRepo, playableBuild: released.playableBuild ?? links.playableBuild };
      } else {
        await write({ type: 'progress', message: "No artifact service is configured: publishing with the record's own links." });
      }
      await commit(links);
      releasedNow = true;
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    await deps.jobs.markFinished(publishJobId, 'failed', { detail });
    await write({ type: 'result', state: 'failed', detail }).catch((e: unknown) => deps.onError(e, 'writing the publish result'));
    await deps.notifications
      .publish({
        kind: 'publish-failed',
        jobId: publishJobId,
        outcome: 'failed',
        recordId: runId,
        message: detail,
        testCaseSlug: row?.test_case_slug ?? '',
        testCaseVersion: row?.test_case_version ?? '',
        variant: row?.variant ?? '',
        harnessSlug: row?.harness ?? '',
        modelId: row?.model_id ?? '',
        ...(row ? { engine: row.engine } : {}),
      })
      .catch((e: unknown) => deps.onError(e, 'raising the publish-failed notification'));
    return;
  }
  if (releasedNow) await deps.requestSnapshot().catch((error: unknown) => deps.onError(error, 'requesting a snapshot refresh'));
  await write(successLine(links)).catch((error: unknown) => deps.onError(error, 'writing the publish result'));
}

const successLine = (links: { sourceRepo: string | null; playableBuild: string | null }): PublishLine => ({
  type: 'result',
  state: 'succeeded',
  ...(links.sourceRepo ? { sourceRepo: links.sourceRepo } : {}),
  ...(links.playableBuild ? { playableBuild: links.playableBuild } : {}),
});

import type { JobRow } from '../db/jobs-table.js';
import type { JobState } from '../queue/run-queue.js';

export type RunEventKind = 'enqueued' | 'state-changed' | 'finished';

type SubjectColumns = Pick<JobRow, 'id' | 'testCaseSlug' | 'testCaseVersion' | 'variant' | 'harnessSlug' | 'modelId' | 'engine' | 'ggPreset'>;

/** What a run event, a notification and the active list say about which run it is. */
export function runSubject(job: SubjectColumns) {
  return {
    runId: job.id,
    testCaseSlug: job.testCaseSlug,
    testCaseVersion: job.testCaseVersion,
    variant: job.variant,
    harnessSlug: job.harnessSlug,
    modelId: job.modelId,
    engine: job.engine ?? 'none',
    ggPreset: job.ggPreset,
  };
}

/**
 * The run-event members that never change for a job (`"runId":…,"testCaseSlug":…`), encoded
 * once at enqueue and kept beside the job in Redis, so every transition's event is built by
 * string concatenation on the hot path.
 */
export function runSubjectJson(job: SubjectColumns): string {
  return JSON.stringify(runSubject(job)).slice(1, -1);
}

/** A run event as JSON text: `{ kind, state, …subject, recordId?, detail? }`. */
export function runEventJson(kind: RunEventKind, state: JobState, subjectJson: string, finished?: { recordId: string | null; detail: string | null }): string {
  const tail = finished ? `,"recordId":${JSON.stringify(finished.recordId)},"detail":${JSON.stringify(finished.detail)}` : '';
  return `{"kind":"${kind}","state":"${state}",${subjectJson}${tail}}`;
}

/** The `run-completed` notification of a run that finished on its own (never for a cancel), from the subject Redis keeps beside the job. */
export function runCompletedNotification(job: { id: string; subjectJson: string; state: 'succeeded' | 'failed'; recordId: string | null; detail: string | null }) {
  const { state, recordId, detail } = job;
  const completed = recordId !== null;
  const { runId: _runId, ...subject } = JSON.parse(`{${job.subjectJson}}`) as ReturnType<typeof runSubject>;
  return {
    kind: 'run-completed' as const,
    jobId: job.id,
    outcome: completed ? ('completed' as const) : ('failed' as const),
    // The console links a completed alert to the record, a failed one to the job.
    recordId: completed ? recordId : job.id,
    message: completed ? (state === 'failed' ? detail : null) : (detail ?? 'The run failed before it produced a record.'),
    ...subject,
  };
}

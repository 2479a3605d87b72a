import type { Database } from './open-database.js';

/** How much one job may upload as showcase media, in all. */
export interface ShowcaseJobBounds {
  files: number;
  bytes: number;
}

/** A job's uploads so far, and the run they are for. */
export interface ShowcaseUsage {
  runId: string;
  files: number;
  bytes: number;
}

/** The `showcase_uploads` table: which run each job uploads for, and how much it uploaded. */
export function showcaseUploadsTable(db: Database) {
  const byJob = db.prepare<[string], ShowcaseUsage>('SELECT run_id AS runId, files, bytes FROM showcase_uploads WHERE job_id = ?');
  const byRun = db.prepare<[string], { jobId: string }>('SELECT job_id AS jobId FROM showcase_uploads WHERE run_id = ?');
  const insert = db.prepare<[string, string]>('INSERT INTO showcase_uploads (job_id, run_id) VALUES (?, ?)');
  const charge = db.prepare<{ jobId: string; bytes: number; maxFiles: number; maxBytes: number }>(
    `UPDATE showcase_uploads SET files = files + 1, bytes = bytes + @bytes
      WHERE job_id = @jobId AND files + 1 <= @maxFiles AND bytes + @bytes <= @maxBytes`,
  );
  // Immediate: two processes binding at once take turns, and the second reads the first's row.
  const bind = db.transaction((jobId: string, runId: string): ShowcaseUsage | { otherJob: string } => {
    const bound = byJob.get(jobId);
    if (bound) return bound;
    const other = byRun.get(runId);
    if (other) return { otherJob: other.jobId };
    insert.run(jobId, runId);
    return { runId, files: 0, bytes: 0 };
  });

  return {
    /**
     * Binds the job to `runId` unless its first upload bound it already. Answers the job's
     * usage (whose `runId` may be another run), or the job that holds `runId`.
     */
    bind: (jobId: string, runId: string) => bind.immediate(jobId, runId),
    /** Counts one upload of `bytes` against the job's bounds; false (nothing counted) when it would pass one. */
    charge: (jobId: string, bytes: number, bounds: ShowcaseJobBounds) =>
      charge.run({ jobId, bytes, maxFiles: bounds.files, maxBytes: bounds.bytes }).changes === 1,
  };
}

export type ShowcaseUploadsTable = ReturnType<typeof showcaseUploadsTable>;

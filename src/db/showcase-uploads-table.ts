import type { BackendStore } from './dialect.js';

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
export function showcaseUploadsTable(store: BackendStore) {
  const { db } = store;
  return {
    /**
     * Binds the job to `runId` unless its first upload bound it already. Answers the job's
     * usage (whose `runId` may be another run), or the job that holds `runId`. The insert
     * does nothing when either the job or the run is bound (both are unique), so two
     * processes binding at once need no transaction: the reads after it see the winner.
     */
    async bind(jobId: string, runId: string): Promise<ShowcaseUsage | { otherJob: string }> {
      await db.insertInto('showcase_uploads').values({ job_id: jobId, run_id: runId }).onConflict((oc) => oc.doNothing()).execute();
      const bound = await db.selectFrom('showcase_uploads').select(['run_id as runId', 'files', 'bytes']).where('job_id', '=', jobId).executeTakeFirst();
      if (bound) return bound;
      const other = await db.selectFrom('showcase_uploads').select('job_id').where('run_id', '=', runId).executeTakeFirstOrThrow();
      return { otherJob: other.job_id };
    },
    /** Counts one upload of `bytes` against the job's bounds; false (nothing counted) when it would pass one. */
    async charge(jobId: string, bytes: number, bounds: ShowcaseJobBounds): Promise<boolean> {
      const result = await db
        .updateTable('showcase_uploads')
        .set((eb) => ({ files: eb('files', '+', 1), bytes: eb('bytes', '+', bytes) }))
        .where('job_id', '=', jobId)
        .where((eb) => eb.and([eb(eb('files', '+', 1), '<=', bounds.files), eb(eb('bytes', '+', bytes), '<=', bounds.bytes)]))
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
  };
}

export type ShowcaseUploadsTable = ReturnType<typeof showcaseUploadsTable>;

import { lockRunId, writeTransaction, type BackendStore } from './dialect.js';

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
     * usage (whose `runId` may be another run), or the job that holds `runId`: one whose
     * uploads bound it, or that stored the run (null: a run no job stored). The check and the
     * bind are one write transaction holding the run id's lock, which storing a run takes too
     * (`runRows().store`), so a run stored by another job between a caller's owner check and
     * this bind is seen here, and a bind made first is seen by that store.
     */
    bind: (jobId: string, runId: string): Promise<ShowcaseUsage | { otherJob: string | null }> =>
      writeTransaction(store, async (trx) => {
        await lockRunId(store.engine, runId).execute(trx);
        const stored = await trx.selectFrom('runs').select('job_id').where('id', '=', runId).executeTakeFirst();
        if (stored && stored.job_id !== jobId) return { otherJob: stored.job_id };
        await trx.insertInto('showcase_uploads').values({ job_id: jobId, run_id: runId }).onConflict((oc) => oc.doNothing()).execute();
        const bound = await trx.selectFrom('showcase_uploads').select(['run_id as runId', 'files', 'bytes']).where('job_id', '=', jobId).executeTakeFirst();
        if (bound) return bound;
        const other = await trx.selectFrom('showcase_uploads').select('job_id').where('run_id', '=', runId).executeTakeFirstOrThrow();
        return { otherJob: other.job_id };
      }),
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

import { conflict } from '../errors.js';

/**
 * A run belongs to the job that first stored it. Another job naming the same run id (a
 * driver's record carries its own id) may neither replace its record nor add to its media,
 * whatever it claims the run to be; the owning job may re-push (the contract's way to
 * restore an unreadable run) and keep adding media.
 */
export function refuseForeignJob(runId: string, owner: string | null, jobId: string, action: string): void {
  if (owner === jobId) return;
  throw conflict(`Run ${runId} belongs to ${owner === null ? 'no job' : `job ${owner}`}; job ${jobId} cannot ${action}.`);
}

import { createHash } from 'node:crypto';
import { sameSecret } from '../http/same-secret.js';
import { notFound, unauthorized } from '../errors.js';

/**
 * Checks a per-job token (minted at claim, stored only as its sha256) against the job it
 * names: 404 for an unknown job, 401 for a job not yet claimed or a token of another job.
 * The `job` route requirement names the job in the `:id` path parameter; a driver's artifact
 * upload names it in `x-svc-job-id` (Authentication rule 6).
 */
export function verifyJobToken(tokenHashOf: (jobId: string) => string | null | undefined, jobId: string, token: string): void {
  const expected = tokenHashOf(jobId);
  if (expected === undefined) throw notFound(`No job ${jobId}.`);
  const given = createHash('sha256').update(token).digest('hex');
  if (expected === null || !sameSecret(given, expected)) {
    throw unauthorized(`The token is not the job token of job ${jobId}.`);
  }
}

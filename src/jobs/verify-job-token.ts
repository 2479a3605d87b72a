import { sameSecret } from '../http/same-secret.js';
import { notFound, unauthorized } from '../errors.js';
import { sha256Hex } from './jobs-context.js';

/** sha256 (hex) of a job's per-job token: undefined for an unknown job, null before its claim. */
export type JobTokenHashOf = (jobId: string) => string | null | undefined | Promise<string | null | undefined>;

/**
 * Checks a per-job token (minted at claim, stored only as its sha256) against the job it
 * names: 404 for an unknown job, 401 for a job not yet claimed or a token of another job.
 * The `job` route requirement names the job in the `:id` path parameter; a driver's artifact
 * upload names it in `x-svc-job-id` (Authentication rule 6).
 */
export async function verifyJobToken(tokenHashOf: JobTokenHashOf, jobId: string, token: string): Promise<void> {
  const expected = await tokenHashOf(jobId);
  if (expected === undefined) throw notFound(`No job ${jobId}.`);
  const given = sha256Hex(token);
  if (expected === null || !sameSecret(given, expected)) {
    throw unauthorized(`The token is not the job token of job ${jobId}.`);
  }
}

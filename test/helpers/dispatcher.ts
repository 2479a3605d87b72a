import { runRecord } from './run-record-builder.js';
import type { jobsHttp } from './jobs-http.js';

type Http = ReturnType<typeof jobsHttp>;

export interface ClaimedRun {
  jobId: string;
  jobToken: string;
  request: { testCase: string; version: string; variant: string; harness: string; model: string; engine?: string | null };
  origin: string | null;
}

/** `POST /jobs/next` as a dispatcher: the claimed job, or null when nothing is claimable. */
export async function claimNext(http: Http, serviceToken: string): Promise<ClaimedRun | null> {
  const claim = await http.post('/jobs/next', serviceToken);
  if (claim.status === 204) return null;
  if (claim.status !== 200) throw new Error(`claim answered ${claim.status}: ${JSON.stringify(claim.body)}`);
  return claim.body as ClaimedRun;
}

/**
 * Drives a claimed job as its driver would: running, then succeeded with a run record of the
 * launched subject (state `completed` unless told otherwise; `loaded: false` for a build that
 * never loaded). Answers the stored run's id.
 */
export async function completeClaimed(http: Http, claimed: ClaimedRun, state = 'completed', loaded = true): Promise<string> {
  const { request } = claimed;
  const record = runRecord({
    slug: request.testCase, version: request.version, variant: request.variant, harness: request.harness, model: request.model,
    ...(request.engine ? { engine: request.engine } : {}), state,
  });
  (record.validation as { loaded: boolean }).loaded = loaded;
  for (const body of [{ state: 'running' }, { state: 'succeeded', record }]) {
    const report = await http.post(`/jobs/${claimed.jobId}/status`, claimed.jobToken, body);
    if (report.status !== 204) throw new Error(`status ${body.state} answered ${report.status}: ${JSON.stringify(report.body)}`);
  }
  const job = await http.get(`/jobs/${claimed.jobId}`);
  return job.body.recordId as string;
}

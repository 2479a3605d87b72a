import { announceWaiting, sha256Hex, type JobsContext } from './jobs-context.js';
import { mintJobToken } from './mint-job-token.js';

/**
 * `POST /jobs/next`: one Redis script claims the oldest claimable job (holding capped and
 * jammed ones on the way) and stores the per-job token's hash with it; the store's copy is
 * written behind the answer, batched with the claims around it. Answers the claimed job as
 * JSON text spliced around the stored launch body, which is never re-parsed; null when
 * nothing is claimable.
 */
export async function claimNextJob(ctx: JobsContext): Promise<string | null> {
  const jobToken = mintJobToken();
  const tokenHash = sha256Hex(jobToken);
  const { claimed, held } = await ctx.queue.claim(tokenHash);
  // The script published the holds' and the claim's run events with the moves themselves.
  await announceWaiting(ctx, held, 'pending', true);
  if (!claimed) return null;
  ctx.dispatches.record(claimed.id, claimed.seq, tokenHash);
  const origin = claimed.origin === null ? 'null' : JSON.stringify(claimed.origin);
  return `{"jobId":"${claimed.id}","jobToken":"${jobToken}","request":${claimed.requestJson},"origin":${origin}}`;
}

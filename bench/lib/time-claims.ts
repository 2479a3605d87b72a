import type { LatencyInput, LatencyOutput } from './latency-worker.js';
import { fillRawClaimQueue } from './raw-claim.js';
import { runWorker } from './run-worker.js';

export interface ClaimTimings {
  noopPost: LatencyOutput[0];
  rawClaim: LatencyOutput[1];
  claim: LatencyOutput[2];
}

/**
 * Times `iterations` claims of one dispatcher on a worker thread, interleaved with the floors
 * (a no-op POST to `noopUrl`, the raw claim script on a queue filled for the purpose). The app
 * must hold `iterations + warmup` claimable jobs.
 */
export async function timeClaims(appUrl: string, noopUrl: string, redisUrl: string, token: string, iterations: number, warmup: number): Promise<ClaimTimings> {
  const rawPrefix = await fillRawClaimQueue(redisUrl, iterations + warmup);
  const input: LatencyInput = { noopUrl, appUrl, token, redisUrl, rawPrefix, iterations, warmup };
  const [noopPost, rawClaim, claim] = await runWorker<LatencyInput, LatencyOutput>('latency-worker', input);
  return { noopPost, rawClaim, claim };
}

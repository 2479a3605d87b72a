import type { LatencySummary } from './stats.js';
import type { LatencyInput, LatencyOutput } from './latency-worker.js';
import { fillRawClaimQueue } from './raw-claim.js';
import { runWorker } from './run-worker.js';

export interface ClaimTimings {
  noopPost: LatencySummary;
  rawClaim: LatencySummary;
  claim: LatencySummary;
}

/**
 * Times `iterations` claims of one dispatcher on a worker thread, interleaved with the floors
 * (a no-op POST to `noopUrl`, the raw claim script on a queue filled for the purpose). The app
 * must hold `iterations + warmup` claimable jobs.
 */
export async function timeClaims(appUrl: string, noopUrl: string, redisUrl: string, token: string, iterations: number, warmup: number): Promise<ClaimTimings> {
  const prefix = await fillRawClaimQueue(redisUrl, iterations + warmup);
  const { noopPost, rawClaim, claims } = await runWorker<LatencyInput, LatencyOutput>('latency-worker', {
    noopUrl, appUrls: [appUrl], token, raw: { redisUrl, prefix }, iterations, warmup,
  });
  return { noopPost, rawClaim: rawClaim!, claim: claims[0]! };
}

/**
 * Times `iterations` claims on each of several apps, round by round with a no-op POST, so
 * every series sees the same moments of the machine. Each app must hold `iterations + warmup`
 * claimable jobs.
 */
export async function timeClaimsAcross(appUrls: string[], noopUrl: string, token: string, iterations: number, warmup: number): Promise<{ noopPost: LatencySummary; claims: LatencySummary[] }> {
  const { noopPost, claims } = await runWorker<LatencyInput, LatencyOutput>('latency-worker', { noopUrl, appUrls, token, raw: null, iterations, warmup });
  return { noopPost, claims };
}

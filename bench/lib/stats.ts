/** Latency summary in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
}

export function summarize(samplesMs: number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const mean = sorted.reduce((sum, x) => sum + x, 0) / Math.max(1, sorted.length);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), mean };
}

/** Times `iterations` sequential calls after `warmup` untimed ones. */
export async function timeSequential(iterations: number, warmup: number, call: () => Promise<unknown>): Promise<LatencySummary> {
  for (let i = 0; i < warmup; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summarize(samples);
}

export const ms = (value: number) => `${value.toFixed(3)} ms`;

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  console.table(rows);
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Times each call in turn, round after round: `iterations` timed rounds after `warmup`
 * untimed ones. Floors and the code under test interleave, so every series sees the same
 * load on a shared machine. Each call starts on a settled event loop: work a call leaves
 * behind after answering (response hooks, a deferred write) runs untimed rather than being
 * charged to the next series.
 */
export async function timeInterleaved(iterations: number, warmup: number, calls: Array<() => Promise<unknown>>): Promise<LatencySummary[]> {
  const samples: number[][] = calls.map(() => []);
  for (let i = 0; i < warmup + iterations; i++) {
    for (const [side, call] of calls.entries()) {
      const start = process.hrtime.bigint();
      await call();
      if (i >= warmup) samples[side]!.push(Number(process.hrtime.bigint() - start) / 1e6);
      await settle();
    }
  }
  return samples.map(summarize);
}

/** Times `a` and `b` alternately, `iterations` times each after `warmup` untimed rounds. */
export async function timePaired(iterations: number, warmup: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[LatencySummary, LatencySummary]> {
  const [first, second] = await timeInterleaved(iterations, warmup, [a, b]);
  return [first!, second!];
}

/**
 * How long the event loop was held while `work` ran: the largest lateness (ms) of a 1 ms
 * timer ticking meanwhile, the stretch from its last tick to the end of `work` included (a
 * hold with nothing after it, as in work that is synchronous to its end, makes no tick late).
 */
export async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  const late = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  };
  const ticker = setInterval(late, 1);
  try {
    await work();
  } finally {
    clearInterval(ticker);
    late();
  }
  return longest;
}

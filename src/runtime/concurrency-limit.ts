/**
 * Runs at most `limit` tasks at once; the rest wait in arrival order. One limiter shared by
 * several callers bounds them together (the definition fetches of a process share one).
 */
export function concurrencyLimit(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((start) => waiting.push(start));
    running += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
}

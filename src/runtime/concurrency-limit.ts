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

/**
 * Runs `task` over `items`, `limit` at a time. After a failure no new task starts, and the
 * call settles only once running tasks have, so the caller can clean up without racing them.
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await task(items[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const rejected = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/**
 * Runs writes one after another in the order they were asked for, without making the
 * caller wait for any of them. A write that fails never becomes an unhandled rejection:
 * the next write still runs, and `settled()` tells how many failed and the first error.
 */
export function orderedWrites<T>(write: (entry: T) => Promise<void>) {
  let chain: Promise<void> = Promise.resolve();
  let failures = 0;
  let firstError: unknown = null;
  return {
    push(entry: T): void {
      chain = chain.then(() => write(entry)).catch((error: unknown) => {
        failures++;
        firstError ??= error;
      });
    },
    /** Resolves once every write asked for so far has finished; never rejects. */
    async settled(): Promise<{ failures: number; firstError: unknown }> {
      await chain;
      return { failures, firstError };
    },
  };
}

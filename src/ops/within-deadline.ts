/**
 * Waits for `work` at most `ms`: operator reads (status, metrics) answer without what Redis
 * did not deliver in time, rather than hanging with it. A late failure after the deadline is
 * settled here, so it never surfaces as an unhandled rejection.
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  const settled = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: `${what} failed: ${error instanceof Error ? error.message : String(error)}` }),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ ok: false; error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `${what} did not answer within ${ms} ms.` }), ms);
  });
  try {
    return await Promise.race([settled, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

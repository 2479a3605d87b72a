import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits for a condition (checked every 20 ms) for at most `timeoutMs`, then fails naming
 * `what`; answers how long it took (ms). A bounded wait on a condition, never a fixed sleep.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const began = Date.now();
  while (!(await check())) {
    if (Date.now() - began > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
  return Date.now() - began;
}

import { describe, expect, it } from 'vitest';
import { orderedWrites } from '../../src/catalog/ordered-writes.js';

describe('orderedWrites', () => {
  it('writes in order, survives a failed write without an unhandled rejection, and reports it', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const written: string[] = [];
      const lines = orderedWrites(async (line: string) => {
        await Promise.resolve();
        if (line === 'b') throw new Error('Connection is closed.');
        written.push(line);
      });
      for (const line of ['a', 'b', 'c']) lines.push(line);
      // Let every write run before anyone awaits the chain, as the scan does; Node reports
      // a rejection nobody handled once the microtasks of a turn have run.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(written).toEqual(['a', 'c']);
      const settled = await lines.settled();
      expect(settled.failures).toBe(1);
      expect((settled.firstError as Error).message).toBe('Connection is closed.');
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

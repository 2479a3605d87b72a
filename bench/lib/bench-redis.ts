import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startManagedRedis } from '../../src/redis/managed-redis.js';

/**
 * REDIS_URL when set, else a throwaway managed redis-server for the run; a throwaway server
 * whatever REDIS_URL says with `own` (for a section that empties its server).
 */
export async function benchRedis({ own = false } = {}): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.REDIS_URL && !own) return { url: process.env.REDIS_URL, stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'evb-bench-redis-'));
  const redis = await startManagedRedis({ dir, persistent: false });
  return {
    url: redis.url,
    async stop() {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import type { Redis } from 'ioredis';
import { backgroundKeys } from '../queue/queue-keys.js';
import { SECOND } from '../time.js';

/**
 * A scan's heartbeat: a key the process running it renews while it runs. A follower that
 * finds it gone knows that process died (kill -9, a crash) within `ALIVE_TTL_MS`, where
 * BullMQ learns it only once the job's 30 s lock lapses. The TTL is five beats, so an event
 * loop busy for a few seconds, or a short Redis blip, is not taken for a death.
 */
const BEAT_EVERY_MS = 2 * SECOND;
export const ALIVE_TTL_MS = 10 * SECOND;

/** Marks scan `jobId` alive now and every beat until `stop()`, which removes the mark. */
export async function beatWhileScanning(redis: Redis, prefix: string, jobId: string): Promise<{ stop(): Promise<void> }> {
  const key = backgroundKeys(prefix).ingestAlive(jobId);
  const beat = () => redis.set(key, '1', 'PX', ALIVE_TTL_MS);
  await beat();
  // A beat that fails (Redis away) is not retried: the next one is two seconds away.
  const timer = setInterval(() => void beat().catch(() => {}), BEAT_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.del(key).catch(() => {});
    },
  };
}

/** Whether the process running scan `jobId` has beaten within the TTL. */
export async function scanAlive(redis: { get(key: string): Promise<string | null> }, prefix: string, jobId: string): Promise<boolean> {
  return (await redis.get(backgroundKeys(prefix).ingestAlive(jobId))) !== null;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startManagedRedis } from '../src/redis/managed-redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** One real redis-server for the whole run; each test file isolates itself with its own key prefix. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'evb-redis-'));
  const redis = await startManagedRedis({ dir, persistent: false });
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

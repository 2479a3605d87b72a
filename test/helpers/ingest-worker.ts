import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { bodyLines } from '../../src/cli/service-client.js';
import type { TestBackend } from './test-backend.js';

const WORKER_SCRIPT = join(import.meta.dirname, '..', '..', 'dist', 'src', 'worker.js');

/**
 * `npm run worker` for `backend` (same store, data, catalog and Redis), in a process group of its
 * own (so a test can stop or kill it with the Chromium it starts); resolves once it runs.
 */
export async function startWorkerProcess(backend: TestBackend, catalog: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER_SCRIPT], {
    env: {
      ...process.env, DATA_DIR: backend.dataDir, CATALOG_DIR: catalog, REDIS_URL: backend.config.redisUrl,
      REDIS_PREFIX: backend.config.redisPrefix, LOG_LEVEL: 'silent',
      ...(backend.config.databaseUrl ? { DATABASE_URL: backend.config.databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes('Worker running queues')) return child;
  }
  throw new Error(`the worker exited before it ran: ${out}`);
}

/** Reads NDJSON lines from a response as they arrive (heartbeats, the blank lines, skipped). */
export async function* ndjsonLines(response: Response): AsyncGenerator<{ event: string; message?: string }> {
  for await (const line of bodyLines(response)) if (line.trim()) yield JSON.parse(line);
}

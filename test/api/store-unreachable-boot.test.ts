import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.js';
import { freeLoopbackPort } from '../../src/redis/managed-redis.js';
import { startTestAuth, type TestAuth } from '../helpers/test-auth.js';
import { until } from '../helpers/until.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let auth: TestAuth;
let dataDir: string;
let socketDir: string;
let postgres: ManagedPostgres | undefined;
let api: ChildProcess;
let base: string;
const output: string[] = [];

beforeAll(async () => {
  auth = await startTestAuth();
  dataDir = mkdtempSync(join(tmpdir(), 'evb-pgboot-'));
  // Where the server will listen once started; nothing listens there yet.
  socketDir = mkdtempSync(join(tmpdir(), 'evb-pgs-'));
  const port = await freeLoopbackPort();
  base = `http://127.0.0.1:${port}`;
  api = spawn(process.execPath, ['dist/src/api/server.js'], {
    cwd: root,
    env: {
      ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), REDIS_URL: inject('redisUrl'), AUTH_URL: auth.url,
      REDIS_PREFIX: `t${randomUUID().slice(0, 8)}`, RUN_WORKERS: 'false', LOG_LEVEL: 'info',
      // The cluster trusts local connections: the password is ignored, and must never be printed.
      DATABASE_URL: `postgres://postgres:sekrit@/postgres?host=${encodeURIComponent(socketDir)}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [api.stdout!, api.stderr!]) stream.on('data', (chunk: Buffer) => output.push(chunk.toString()));
});
afterAll(async () => {
  if (api.exitCode === null && api.signalCode === null) {
    api.kill('SIGTERM');
    await once(api, 'exit');
  }
  await postgres?.stop();
  await auth.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(socketDir, { recursive: true, force: true });
});

const get = async (path: string) => {
  const response = await fetch(`${base}${path}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};
const alive = () => api.exitCode === null && api.signalCode === null;

it('an API whose PostgreSQL cannot be reached at boot serves health, says why in readiness, refuses the rest 503, and boots once it is there', async () => {
  await until(async () => !alive() || (await get('/healthz').then(() => true, () => false)), 60_000, 'the API to listen');
  expect(alive(), output.join('')).toBe(true);
  expect((await get('/healthz')).body).toMatchObject({ status: 'ok', storeReady: false });
  const ready = await get('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body).toEqual({
    status: 'store-unavailable', storeReady: false,
    detail: expect.stringMatching(/^The API could not start: the store \(PostgreSQL\) cannot be reached \(ENOENT\); the boot is tried again every 5 s\.$/),
  });
  const launch = await fetch(`${base}/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(launch.status).toBe(503);
  expect(launch.headers.get('retry-after')).toBe('2');
  expect(await launch.json()).toEqual({ error: { code: 'store_unavailable', message: ready.body.detail } });

  postgres = await startManagedPostgres({ dir: socketDir });
  // The next try reaches the store and migrates it. Until every store module is moved, the
  // boot then stops, naming the module that still reads the SQLite handle; after, it serves.
  await until(async () => !alive() || (await get('/readyz').then((answer) => answer.body.status !== 'store-unavailable', () => false)), 60_000, 'the boot to reach the store');
  const log = output.join('');
  if (alive()) expect((await get('/readyz')).body).toEqual({ status: 'empty', storeReady: false });
  else expect(log).toMatch(/The service could not start: DATABASE_URL names a PostgreSQL store, but a module not moved to the store layer yet reads the SQLite handle/);
  expect(log.match(/serving health only until it can/g)).toHaveLength(1);
  expect(log).not.toContain('sekrit');
  expect(readdirSync(dataDir)).not.toContain('backend.sqlite');
}, 150_000);

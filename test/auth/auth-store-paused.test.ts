import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAuthApp } from '../../src/auth/app.js';
import { openAuthStore, type AuthStore } from '../../src/auth/auth-store.js';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.js';
import { SECOND } from '../../src/time.js';
import { pausePostgres } from '../helpers/pause-postgres.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

// The auth service's accounts in a PostgreSQL that hangs (paused), on a cluster of this file's
// own in both halves of the suite; the backend's store stays on the run's engine.
const folder = mkdtempSync(join(tmpdir(), 'evb-pg-auth-'));
let server: ManagedPostgres;
let authStore: AuthStore;
let authApp: FastifyInstance;
let authUrl: string;
let backend: TestBackend;
let resume: (() => void) | null = null;

beforeAll(async () => {
  server = await startManagedPostgres({ dir: folder });
  authStore = await openAuthStore({ url: await server.createDatabase('accounts') });
  authApp = await buildAuthApp({ store: authStore, tokenLifetimeMs: null });
  authUrl = await authApp.listen({ host: '127.0.0.1', port: 0 });
  backend = await startTestBackend({ AUTH_URL: authUrl });
  await backend.app.listen({ host: '127.0.0.1', port: 0 });
}, 120 * SECOND);
afterAll(async () => {
  resume?.();
  await backend?.close();
  await authApp?.close();
  await authStore?.db.destroy();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function timed(call: () => Promise<Response>) {
  const began = Date.now();
  const response = await call();
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code, retryAfter: Number(response.headers.get('retry-after')), ms: Date.now() - began };
}
const login = () => fetch(`${authUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'operator', password: 'correct horse battery' }) });
const verify = (token: string) => fetch(`${authUrl}/auth/verify`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });

describe('the auth service with its PostgreSQL paused', () => {
  it('answers 503 with Retry-After within a few seconds, the API passes 503 and Retry-After on, and both answer again once it resumes', async () => {
    const registered = await fetch(`${authUrl}/auth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'operator', password: 'correct horse battery', displayName: 'operator' }),
    });
    expect(registered.status).toBe(201);
    const { token } = (await registered.json()) as { token: string };
    // An account route of the API: a cancel sweep, which verifies the token with the auth service.
    const sweep = () => fetch(`${backend.app.listeningOrigin}/jobs/cancel-all`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect((await sweep()).status).toBe(200);

    resume = pausePostgres(server.pid);
    for (let round = 0; round < 2; round += 1) {
      const [loggedIn, verified, swept] = await Promise.all([timed(login), timed(() => verify(token)), timed(sweep)]);
      expect(loggedIn).toMatchObject({ status: 503, code: 'store_unavailable' });
      expect(verified).toMatchObject({ status: 503, code: 'store_unavailable' });
      expect(swept).toMatchObject({ status: 503, code: 'auth_store_unavailable' });
      for (const answer of [loggedIn, verified, swept]) {
        expect(answer.retryAfter).toBeGreaterThan(0);
        expect(answer.ms).toBeLessThan(4 * SECOND);
      }
    }

    resume();
    resume = null;
    await until(async () => (await sweep()).status === 200, 15 * SECOND, 'the auth service to answer again');
    expect((await login()).status).toBe(200);
  }, 90 * SECOND);
});

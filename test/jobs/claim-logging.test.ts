import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false', SERVICE_TOKEN: 'dispatch-secret' });
  await backend.app.close();
});
afterAll(() => backend.close());

describe('the request log at info', () => {
  it('leaves out dispatchers polling /jobs/next, and keeps every other request', async () => {
    const lines: Array<{ msg: string; req?: { url: string }; level: number }> = [];
    const app = await buildApp({
      config: { ...backend.config, logLevel: 'info' },
      db: backend.app.sqlite,
      store: backend.store,
      logStream: { write: (line) => void lines.push(JSON.parse(line) as (typeof lines)[number]) },
    });
    try {
      const claim = await app.inject({ method: 'POST', url: '/jobs/next', headers: { authorization: 'Bearer dispatch-secret' } });
      expect(claim.statusCode).toBe(204);
      expect((await app.inject({ method: 'GET', url: '/jobs/active' })).statusCode).toBe(200);
      const requests = lines.filter((line) => line.msg === 'incoming request').map((line) => line.req!.url);
      expect(requests).toEqual(['/jobs/active']);
      // A refused claim is still no line of its own: the 401 is the dispatcher's to see.
      expect((await app.inject({ method: 'POST', url: '/jobs/next' })).statusCode).toBe(401);
      expect(lines.filter((line) => line.req?.url === '/jobs/next')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

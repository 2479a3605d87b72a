import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConnection, type RawConnection } from '../../chaos/lib/raw-client.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

// Issue 39 item 12: behind a load balancer every request comes from the balancer's address,
// so a per-client limit (here STREAMS_PER_CLIENT) held every client to one share. With
// TRUST_PROXY the client is the address the balancer names in X-Forwarded-For.

const backends: TestBackend[] = [];
afterAll(async () => {
  for (const backend of backends) await backend.close();
});

async function backendWith(env: Record<string, string>): Promise<number> {
  const backend = await startTestBackend({ STREAMS_PER_CLIENT: '1', ...env });
  backends.push(backend);
  return Number(new URL(await backend.app.listen({ host: '127.0.0.1', port: 0 })).port);
}

const open: RawConnection[] = [];
afterAll(() => {
  for (const connection of open) connection.socket.destroy();
});

/** Opens the console stream through "the balancer" (127.0.0.1) on behalf of `client`; answers its status. */
async function streamFor(port: number, client: string): Promise<number> {
  const connection = await rawConnection(port);
  open.push(connection);
  connection.socket.write(`GET /notifications HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: ${client}\r\n\r\n`);
  await until(() => connection.status() !== null, 10_000, 'an answer');
  return connection.status()!;
}

describe('TRUST_PROXY', () => {
  let trusting: number;
  let plain: number;
  beforeAll(async () => {
    [trusting, plain] = await Promise.all([backendWith({ TRUST_PROXY: '127.0.0.1' }), backendWith({})]);
  });

  it('set to the balancer\'s address, keys the per-client stream limit on X-Forwarded-For', async () => {
    expect(await streamFor(trusting, '203.0.113.7')).toBe(200);
    expect(await streamFor(trusting, '198.51.100.9')).toBe(200);
    expect(await streamFor(trusting, '203.0.113.7')).toBe(429);
  });

  it('unset, ignores X-Forwarded-For: every client behind the balancer shares its address', async () => {
    expect(await streamFor(plain, '203.0.113.7')).toBe(200);
    expect(await streamFor(plain, '198.51.100.9')).toBe(429);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawConnection } from '../../chaos/lib/raw-client.js';
import { processAlive, SupervisedService } from '../../chaos/lib/supervised-service.js';
import { freeLoopbackPort } from '../../src/redis/managed-redis.js';
import { until } from '../helpers/until.js';

type Pids = Record<'supervisor' | 'api' | 'auth' | 'redis', number>;

const GRACEFUL = /: finishing in-flight requests and shutting down/;
const AGAIN = / again: exiting now/;

/**
 * When each process was first seen gone. Checked from the last to stop to the first, so a
 * pass that sees a later one gone also sees the earlier ones gone: the times keep the order.
 */
async function exitTimes(pids: Pids, timeoutMs: number): Promise<Pids> {
  const gone: Partial<Pids> = {};
  await until(
    () => {
      // One time for the whole pass: processes first seen gone together are gone at once.
      const now = performance.now();
      for (const name of ['supervisor', 'redis', 'auth', 'api'] as const) if (gone[name] === undefined && !processAlive(pids[name])) gone[name] = now;
      return Object.keys(gone).length === 4;
    },
    timeoutMs,
    'the supervisor, the API, the auth service and Redis to exit',
  );
  return gone as Pids;
}

// A terminal's Ctrl-C signals every process of the foreground group at once: the shell under
// npm, the bootstrap, the supervisor and, unless they lead groups of their own, its children.
describe.runIf(process.platform === 'linux')('Ctrl-C of npm start', () => {
  const dataDirs: string[] = [];
  const services: SupervisedService[] = [];
  afterAll(async () => {
    for (const service of services) await service.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  const start = async (launch: 'supervisor' | 'npm-start') => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evb-ctrl-c-'));
    dataDirs.push(dataDir);
    const service = new SupervisedService({ dataDir, port: await freeLoopbackPort(), authPort: await freeLoopbackPort(), launch, ownProcessGroup: true });
    services.push(service);
    // npm start compiles first.
    await service.start(120_000);
    const pids: Pids = { supervisor: service.supervisorPid!, api: service.pid('api')!, auth: service.pid('auth')!, redis: service.pid('redis')! };
    return { service, pids };
  };

  for (const launch of ['supervisor', 'npm-start'] as const) {
    it(`one Ctrl-C of ${launch === 'supervisor' ? 'the supervisor' : 'npm start'} drains the API, then stops auth, then Redis`, async () => {
      const { service, pids } = await start(launch);
      service.interrupt();
      const gone = await exitTimes(pids, 60_000);
      // npm answers a Ctrl-C by ending itself with the same signal, once its script shell has.
      if (launch === 'supervisor') expect(await service.exited()).toBe(0);
      // Dead processes wrote all they will: what is left is in the pipe.
      await until(() => GRACEFUL.test(service.log.join('\n')), 5000, 'the API to log its graceful stop');
      expect(service.log.join('\n')).not.toMatch(AGAIN);
      expect(gone.api).toBeLessThanOrEqual(gone.auth);
      expect(gone.auth).toBeLessThanOrEqual(gone.redis);
    }, 240_000);
  }

  it('a second Ctrl-C while the service stops exits at once, leaving nothing running', async () => {
    const { service, pids } = await start('supervisor');
    // A request whose body never ends keeps the API draining (until REQUEST_TIMEOUT_SECONDS).
    const slow = await rawConnection(service.options.port);
    slow.socket.write('POST /ingest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"testCases":');
    service.interrupt();
    await until(() => service.log.some((line) => line.includes('stopping every child')), 30_000, 'the supervisor to start stopping');
    service.interrupt();
    expect(await service.exited()).toBe(1);
    await exitTimes(pids, 30_000);
    slow.socket.destroy();
  }, 120_000);
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processAlive, SupervisedService } from '../../chaos/lib/supervised-service.js';
import { freeLoopbackPort } from '../../src/redis/managed-redis.js';

/** redis-servers serving this data directory's socket, by their (rewritten) process titles. */
function redisServersOf(dataDir: string): number {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes('redis-server') && line.includes(join(dataDir, 'redis'))).length;
}

describe('npm start (the supervisor)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-sup-'));
  const services: SupervisedService[] = [];
  afterAll(async () => {
    for (const service of services) await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('restarts a killed API, its children die with it, and the next start finds nothing running twice', async () => {
    const ports = { port: await freeLoopbackPort(), authPort: await freeLoopbackPort() };
    const first = new SupervisedService({ dataDir, ...ports });
    services.push(first);
    await first.start();
    const [api, auth, redis] = [first.pid('api')!, first.pid('auth')!, first.pid('redis')!];
    expect(redisServersOf(dataDir)).toBe(1);

    process.kill(api, 'SIGKILL');
    await first.waitFor(async () => first.pid('api') !== api && (await first.healthy()), 30_000, 'the API to be restarted');
    expect(first.log.some((line) => line.includes('api exited unexpectedly (SIGKILL); restarting'))).toBe(true);
    expect(processAlive(auth) && processAlive(redis)).toBe(true);

    // The supervisor itself dies hard: every child notices and exits on its own.
    const children = [first.pid('api')!, auth, redis];
    process.kill(first.supervisorPid!, 'SIGKILL');
    await first.waitFor(() => children.every((pid) => !processAlive(pid)), 20_000, 'the orphaned children to exit');

    // A new start on the same data directory and ports serves, with a single redis-server.
    const second = new SupervisedService({ dataDir, ...ports });
    services.push(second);
    await second.start();
    expect(redisServersOf(dataDir)).toBe(1);

    // A second start while one runs refuses, and starts nothing.
    const third = new SupervisedService({ dataDir, port: await freeLoopbackPort(), authPort: await freeLoopbackPort() });
    await expect(third.start(10_000)).rejects.toThrow(/exited \(code 1\)/);
    expect(third.log.join('\n')).toContain('is already served by another `npm start`');
    expect(redisServersOf(dataDir)).toBe(1);

    const running = [second.pid('api')!, second.pid('auth')!, second.pid('redis')!];
    expect(await second.stop()).toBeLessThan(20_000);
    expect(running.filter(processAlive)).toEqual([]);
  }, 120_000);
});

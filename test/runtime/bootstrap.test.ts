import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { descendantsOf, processAlive, SupervisedService } from '../../chaos/lib/supervised-service.js';
import { freeLoopbackPort } from '../../src/redis/managed-redis.js';

describe.runIf(process.platform === 'linux')('npm start killed hard', () => {
  const dataDirs: string[] = [];
  const services: SupervisedService[] = [];
  afterAll(async () => {
    for (const service of services) await service.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  // `npm start` runs the bootstrap in a shell that outlives a killed npm; a killed bootstrap
  // closes its supervisor's channel.
  for (const launch of ['npm-start', 'bootstrap'] as const) {
    it(`leaves nothing running after kill -9 of ${launch === 'npm-start' ? 'npm' : 'the bootstrap'}, and the next start takes the data directory`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'evb-boot-'));
      dataDirs.push(dataDir);
      const ports = { port: await freeLoopbackPort(), authPort: await freeLoopbackPort() };
      const first = new SupervisedService({ dataDir, ...ports, launch });
      services.push(first);
      // The bootstrap compiles first.
      await first.start(120_000);
      const running = descendantsOf(first.topPid!);
      // The shell (under npm), the bootstrap, the supervisor, redis-server (under setpriv), the auth service, the API.
      expect(running.length).toBeGreaterThanOrEqual(launch === 'npm-start' ? 6 : 4);

      process.kill(first.topPid!, 'SIGKILL');
      await first.waitFor(() => running.every((pid) => !processAlive(pid)), 20_000, `every process ${launch} started to exit`);

      const second = new SupervisedService({ dataDir, ...ports });
      services.push(second);
      await second.start();
      expect(await second.healthy()).toBe(true);
      await second.stop();
    }, 240_000);
  }
});

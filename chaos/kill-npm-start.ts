/**
 * kill -9 of the process an operator started: `npm start` (npm, whose script shell and the
 * bootstrap outlive it), then `node scripts/bootstrap.mjs start`. Proves every process
 * below it exits on its own within seconds, and a new start takes the data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../src/redis/managed-redis.js';
import { printFigures } from './lib/chaos-service.js';
import { descendantsOf, processAlive, SupervisedService } from './lib/supervised-service.js';

export default async function killNpmStart(): Promise<void> {
  for (const launch of ['npm-start', 'bootstrap'] as const) {
    const dataDir = mkdtempSync(join(tmpdir(), 'evb-chaos-'));
    const ports = { port: await freeLoopbackPort(), authPort: await freeLoopbackPort() };
    const first = new SupervisedService({ dataDir, ...ports, launch, env: { LOG_LEVEL: 'warn' } });
    const next = new SupervisedService({ dataDir, ...ports, env: { LOG_LEVEL: 'warn' } });
    try {
      await first.start(180_000);
      const running = descendantsOf(first.topPid!);
      const killedAt = Date.now();
      process.kill(first.topPid!, 'SIGKILL');
      const goneAt = await first.waitFor(() => running.every((pid) => !processAlive(pid)), 60_000, 'every process to exit').then(() => Date.now(), () => 0);
      const left = running.filter(processAlive).length;
      const startedAt = Date.now();
      const taken = await next.start().then(() => true, () => false);
      printFigures({
        [`kill -9 of ${launch === 'npm-start' ? 'npm (npm start)' : 'the bootstrap (node scripts/bootstrap.mjs start)'}`]: '',
        '  processes below it': running.length,
        '  still running after 60 s': left,
        '  seconds until all had exited': goneAt ? ((goneAt - killedAt) / 1000).toFixed(1) : 'never',
        '  next start took the data directory': taken,
        '  seconds for the next start to serve': taken ? ((Date.now() - startedAt) / 1000).toFixed(1) : '-',
      });
    } finally {
      await next.stop();
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

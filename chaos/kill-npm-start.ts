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
import { judge, type FigureValue, type ScenarioResult } from './lib/scenario-result.js';
import { descendantsOf, processAlive, SupervisedService } from './lib/supervised-service.js';

export default async function killNpmStart(): Promise<ScenarioResult> {
  const figures: Record<string, FigureValue> = {};
  const checks: Record<string, boolean> = {};
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
      const gone = goneAt ? `${((goneAt - killedAt) / 1000).toFixed(1)} s` : 'never';
      printFigures({
        [`kill -9 of ${launch === 'npm-start' ? 'npm (npm start)' : 'the bootstrap (node scripts/bootstrap.mjs start)'}`]: '',
        '  processes below it': running.length,
        '  still running after 60 s': left,
        '  all had exited after': gone,
        '  next start took the data directory': taken,
        '  seconds for the next start to serve': taken ? ((Date.now() - startedAt) / 1000).toFixed(1) : '-',
      });
      figures[`${launch}: left running`] = `${left} of ${running.length}`;
      figures[`${launch}: all exited after`] = gone;
      checks[`every process below ${launch} exited within 60 s`] = left === 0;
      checks[`the next start after ${launch} took the data directory`] = taken;
    } finally {
      await next.stop();
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return judge(figures, checks);
}

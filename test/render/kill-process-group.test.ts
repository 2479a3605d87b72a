import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { killProcessGroup } from '../../src/render/kill-process-group.js';

/** Live (not exited, not zombie) processes of group `pgid`, from /proc. */
function liveMembers(pgid: number): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(group) === pgid && state !== 'Z' && state !== 'X' ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

it.runIf(process.platform === 'linux')('resolves only once every process of the group has stopped running', async () => {
  // A leader and eight children, as a browser and its renderers: a group of their own.
  const leader = spawn('sh', ['-c', 'for i in 1 2 3 4 5 6 7 8; do sleep 600 & done; echo up; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  await once(leader.stdout!, 'data');
  expect(liveMembers(leader.pid!)).toHaveLength(9);
  const exited = once(leader, 'exit');

  await killProcessGroup(leader.pid!, 5000);
  // Checked at once: a kill that does not wait leaves processes that have not yet died.
  expect(liveMembers(leader.pid!)).toEqual([]);
  await exited;
});

it.runIf(process.platform === 'linux')('returns at once for a group that is already gone', async () => {
  const leader = spawn('true', { detached: true, stdio: 'ignore' });
  await once(leader, 'exit');
  const started = performance.now();
  await killProcessGroup(leader.pid!, 5000);
  expect(performance.now() - started).toBeLessThan(1000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../chaos/lib/supervised-service.js';
import { DataDirBusyError, lockDataDir, type StaleProcess } from '../../src/runtime/data-dir-lock.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'evb-lock-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A long-running process standing in for a child a crashed start left behind. */
async function leftover() {
  const child = spawn('sleep', ['120'], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  await new Promise((ready) => child.once('spawn', ready));
  return child;
}

it('stops a child a previous start left running, and only that one', async () => {
  const dir = tempDir();
  const stale = await leftover();
  const stranger = await leftover();
  const previous = await lockDataDir(dir, () => {});
  previous.record('redis', stale.pid!);
  // A pid file whose pid now belongs to another program is left alone.
  writeFileSync(join(dir, 'run', 'auth.pid'), `${stranger.pid}\n/usr/bin/node /somewhere/auth/server.js\n`);

  const seen: StaleProcess[] = [];
  const exited = new Promise((done) => stale.once('exit', done));
  await lockDataDir(dir, (found) => seen.push(found));
  await exited;
  expect(seen).toEqual([{ name: 'redis', pid: stale.pid }]);
  expect(processAlive(stranger.pid!)).toBe(true);
});

it('refuses a data directory another live supervisor holds, and takes one whose supervisor is gone', async () => {
  const dir = tempDir();
  const holder = await leftover();
  await lockDataDir(dir, () => {});
  const ownCommand = readFileSync(join(dir, 'run', 'supervisor.pid'), 'utf8').split('\n')[1];
  expect(ownCommand).toBeTruthy();
  writeFileSync(join(dir, 'run', 'supervisor.pid'), `${holder.pid}\nsleep 120\n`);
  await expect(lockDataDir(dir, () => {})).rejects.toBeInstanceOf(DataDirBusyError);

  holder.kill('SIGKILL');
  await new Promise((done) => holder.once('exit', done));
  const pids = await lockDataDir(dir, () => {});
  expect(readFileSync(join(dir, 'run', 'supervisor.pid'), 'utf8').split('\n')[0]).toBe(String(process.pid));
  pids.release();
});

// Takers are separate processes running compiled code: `npm test` builds dist/ first.
const lockModule = fileURLToPath(new URL('../../dist/src/runtime/data-dir-lock.js', import.meta.url));

/**
 * A process that says `ready`, takes the lock on `dataDir` when it reads `go`, says `won` or
 * `busy`, and (having won) holds the lock until its standard input closes.
 */
function taker(dataDir: string): { child: ChildProcess; next(): Promise<string> } {
  const script = `
    import { createInterface } from 'node:readline';
    import { DataDirBusyError, lockDataDir } from ${JSON.stringify(lockModule)};
    const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    console.log('ready');
    await lines.next();
    try {
      const pids = await lockDataDir(${JSON.stringify(dataDir)}, () => {});
      console.log('won');
      await lines.next();
      pids.release();
    } catch (error) {
      if (!(error instanceof DataDirBusyError)) throw error;
      console.log('busy');
    }
    process.exit(0);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, next: async () => String((await lines.next()).value) };
}

/** Starts `count` takers at one moment on `dataDir`; answers who won and who was refused. */
async function race(dataDir: string, count: number) {
  const takers = Array.from({ length: count }, () => taker(dataDir));
  for (const one of takers) expect(await one.next()).toBe('ready');
  for (const one of takers) one.child.stdin!.write('go\n');
  const outcomes = await Promise.all(takers.map((one) => one.next()));
  const winners = takers.filter((_, i) => outcomes[i] === 'won');
  return { winners, refused: outcomes.filter((outcome) => outcome === 'busy').length };
}

describe('starts racing for one data directory', () => {
  const TAKERS = 30;

  it(`lets exactly one of ${TAKERS} simultaneous takers have a free directory`, async () => {
    for (let trial = 0; trial < 3; trial++) {
      const dir = tempDir();
      const { winners, refused } = await race(dir, TAKERS);
      expect({ trial, winners: winners.length, refused }).toEqual({ trial, winners: 1, refused: TAKERS - 1 });
      expect(readFileSync(join(dir, 'run', 'supervisor.pid'), 'utf8').split('\n')[0]).toBe(String(winners[0]!.child.pid));
      winners[0]!.child.stdin!.end();
      await once(winners[0]!.child, 'exit');
    }
  }, 120_000);

  it(`lets exactly one of ${TAKERS} simultaneous takers replace a lock whose holder died`, async () => {
    for (let trial = 0; trial < 3; trial++) {
      const dir = tempDir();
      const dead = await leftover();
      dead.kill('SIGKILL');
      await once(dead, 'exit');
      await lockDataDir(dir, () => {});
      writeFileSync(join(dir, 'run', 'supervisor.pid'), `${dead.pid}\nsleep 120\n`);
      const { winners, refused } = await race(dir, TAKERS);
      expect({ trial, winners: winners.length, refused }).toEqual({ trial, winners: 1, refused: TAKERS - 1 });
      winners[0]!.child.stdin!.end();
      await once(winners[0]!.child, 'exit');
      // Released: the directory is free again, for a start in this process.
      (await lockDataDir(dir, () => {})).release();
    }
  }, 120_000);
});

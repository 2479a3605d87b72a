import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
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

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SECOND } from '../time.js';

/**
 * The processes one `npm start` runs for a DATA_DIR, recorded as pid files under
 * `DATA_DIR/run/`: `supervisor.pid` is the lock on the directory, and each child's file
 * lets the next start find what a crashed one left behind.
 */
export interface PidFiles {
  dir: string;
  /** Records a child's pid under its name. */
  record(name: string, pid: number): void;
  /** Forgets a child that stopped. */
  forget(name: string): void;
  /** Releases the lock (the supervisor's own pid file) and forgets every child: all stopped. */
  release(): void;
}

/** The children a supervisor records, in the order a stale set is stopped. */
const CHILDREN = ['api', 'auth', 'redis'] as const;

export interface StaleProcess {
  name: string;
  pid: number;
}

export class DataDirBusyError extends Error {
  constructor(readonly pid: number, dataDir: string) {
    super(`DATA_DIR ${dataDir} is already served by another \`npm start\` (pid ${pid}); stop it first or use another DATA_DIR.`);
    this.name = 'DataDirBusyError';
  }
}

/**
 * Takes the lock on `dataDir` for this process, then stops every process a previous start
 * left running (its pid file names a live process whose command line still matches what it
 * recorded), so this start never runs a second redis-server or auth service on the same
 * data. Throws DataDirBusyError when a live supervisor holds the lock.
 */
export async function lockDataDir(dataDir: string, onStale: (stale: StaleProcess) => void): Promise<PidFiles> {
  const dir = join(dataDir, 'run');
  mkdirSync(dir, { recursive: true });
  const lockFile = join(dir, 'supervisor.pid');
  const holder = readPidFile(lockFile);
  if (holder && holder.pid !== process.pid && commandLineMatches(holder.pid, holder.marker)) throw new DataDirBusyError(holder.pid, dataDir);
  writePidFile(lockFile, process.pid, commandLine(process.pid));

  for (const name of CHILDREN) {
    const file = join(dir, `${name}.pid`);
    const recorded = readPidFile(file);
    if (recorded && commandLineMatches(recorded.pid, recorded.marker)) {
      onStale({ name, pid: recorded.pid });
      await stopProcess(recorded.pid);
    }
    rmSync(file, { force: true });
  }

  return {
    dir,
    record: (name, pid) => writePidFile(join(dir, `${name}.pid`), pid, commandLine(pid)),
    forget: (name) => rmSync(join(dir, `${name}.pid`), { force: true }),
    release: () => {
      for (const name of CHILDREN) rmSync(join(dir, `${name}.pid`), { force: true });
      const current = readPidFile(lockFile);
      if (current?.pid === process.pid) rmSync(lockFile, { force: true });
    },
  };
}

/** SIGTERM, then SIGKILL if it is still alive after `graceMs`. */
export async function stopProcess(pid: number, graceMs = 10 * SECOND): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(50);
    if (!alive(pid)) return;
  }
  signal(pid, 'SIGKILL');
  while (alive(pid)) await sleep(20);
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) answers signal 0 but is gone.
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The process's command line as the kernel reports it, or '' when it is gone or unreadable. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/**
 * A recorded pid is ours only while the process still runs the program recorded with it:
 * pids are reused, and signalling a stranger's process would be worse than a failed start.
 * redis-server rewrites its own title, so only the program name is compared.
 */
function commandLineMatches(pid: number, marker: string): boolean {
  if (!alive(pid)) return false;
  const now = commandLine(pid);
  if (!now || !marker) return false;
  return programOf(now) === programOf(marker);
}

function programOf(line: string): string {
  const words = line.split(' ');
  // `node path/to/entry.js`: the entry names the program.
  return words[0]!.endsWith('node') ? (words[1] ?? '') : words[0]!.split('/').pop()!;
}

function writePidFile(file: string, pid: number, marker: string): void {
  writeFileSync(file, `${pid}\n${marker}\n`);
}

function readPidFile(file: string): { pid: number; marker: string } | null {
  try {
    const [pid, marker = ''] = readFileSync(file, 'utf8').split('\n');
    const parsed = Number(pid);
    return Number.isInteger(parsed) && parsed > 0 ? { pid: parsed, marker } : null;
  } catch {
    return null;
  }
}

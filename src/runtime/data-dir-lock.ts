import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * data. Throws DataDirBusyError when a live supervisor holds the lock. Of several starts at
 * one moment exactly one takes it, whether the directory was free or its holder had died.
 */
export async function lockDataDir(dataDir: string, onStale: (stale: StaleProcess) => void): Promise<PidFiles> {
  const dir = join(dataDir, 'run');
  mkdirSync(dir, { recursive: true });
  const lockFile = join(dir, 'supervisor.pid');
  const holder = await takeLock(lockFile);
  if (holder !== null) throw new DataDirBusyError(holder, dataDir);

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

/** How long a start that finds another taking over a dead holder's lock waits before it looks again (ms). */
const TAKEOVER_WAIT_MS = 20;

/** A lock file as read: who holds it, and which file it is (a replaced lock is another file). */
interface LockHolder {
  /** Null when the file names no pid (one an older start left empty when it died writing it): nobody holds it. */
  pid: number | null;
  marker: string;
  ino: number;
  text: string;
}

/**
 * Takes `file` for this process: answers null once it holds it, or the pid of the live
 * process that does. A file whose holder is dead is removed and the take tried again.
 */
async function takeLock(file: string): Promise<number | null> {
  for (;;) {
    if (createExclusive(file, `${process.pid}\n${commandLine(process.pid)}\n`)) return null;
    const holder = readLock(file);
    // Released between the two steps: try again.
    if (!holder) continue;
    if (holder.pid === process.pid) return null;
    if (holder.pid !== null && commandLineMatches(holder.pid, holder.marker)) return holder.pid;
    await removeDeadLock(file, holder);
  }
}

/**
 * Creates `file` holding `text` unless it exists, in one step: the text is written to a
 * name of its own and hard-linked in place, which fails when the file exists. (An exclusive
 * create followed by a write would show other starts an empty lock for a moment, which
 * they would take for a dead one.)
 */
function createExclusive(file: string, text: string): boolean {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, text);
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Removes the lock `dead` names, if `file` still is that very lock. Several starts may find
 * the same dead holder at once, and one that removed it may already hold a new lock under
 * the same name, so the removal is itself locked, by a takeover lock named after the dead
 * file: its holder checks that `file` is still the dead one before removing it, the others
 * wait and look again. A start that died holding a takeover lock left a dead lock like any
 * other, taken over the same way.
 */
async function removeDeadLock(file: string, dead: LockHolder): Promise<void> {
  const takeover = `${file}.takeover-${dead.ino}`;
  if ((await takeLock(takeover)) !== null) {
    await sleep(TAKEOVER_WAIT_MS);
    return;
  }
  try {
    const now = readLock(file);
    if (now && now.ino === dead.ino && now.text === dead.text) rmSync(file, { force: true });
  } finally {
    rmSync(takeover, { force: true });
  }
}

/** The lock file's holder and identity, or null when there is no such file. */
function readLock(file: string): LockHolder | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const text = readFileSync(fd, 'utf8');
    const [pid, marker = ''] = text.split('\n');
    const parsed = Number(pid);
    return { pid: Number.isInteger(parsed) && parsed > 0 ? parsed : null, marker, ino: fstatSync(fd).ino, text };
  } finally {
    closeSync(fd);
  }
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

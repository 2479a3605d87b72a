import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { toError } from '../errors.js';

// SIGKILL is only a request: a large process under load takes a moment to unmap its memory
// and exit. Checked this often, for at most this long.
const POLL_MS = 10;

/**
 * SIGKILLs every process of the group `pgid` and resolves once none of them runs any more
 * (exited, or a zombie waiting for its reaper), or after `timeoutMs`, whichever comes first.
 * Linux reads the group's members from /proc; elsewhere only the signal is sent.
 */
export async function killProcessGroup(pgid: number, timeoutMs: number): Promise<void> {
  if (process.platform === 'win32') return;
  // Members first: a process the signal has reaped is no longer listed as one.
  const members = process.platform === 'linux' ? await groupMembers(pgid) : [];
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch (error) {
    // ESRCH: none left. Anything else is worth a warning, not a failed close.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') process.emitWarning(toError(error, `Killing process group ${pgid} failed`));
    return;
  }
  const deadline = performance.now() + timeoutMs;
  let running = members;
  while (running.length > 0 && performance.now() < deadline) {
    await delay(POLL_MS);
    running = (await Promise.all(running.map(async (pid) => ((await isRunning(pid, pgid)) ? [pid] : [])))).flat();
  }
  if (running.length > 0) process.emitWarning(`Processes ${running.join(', ')} of group ${pgid} still run ${timeoutMs} ms after SIGKILL.`);
}

async function groupMembers(pgid: number): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const members = await Promise.all(pids.map(async (pid) => ((await statOf(pid))?.pgid === pgid ? [pid] : [])));
  return members.flat();
}

/** Still a live member of the group (a reused pid belongs to another group). */
async function isRunning(pid: number, pgid: number): Promise<boolean> {
  const stat = await statOf(pid);
  return stat !== null && stat.pgid === pgid && stat.state !== 'Z' && stat.state !== 'X';
}

/** State and process group from /proc/<pid>/stat; null once the process is gone. */
async function statOf(pid: number): Promise<{ state: string; pgid: number } | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', pgid: Number(fields[2]) };
}

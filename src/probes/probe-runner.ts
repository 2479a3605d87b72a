import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** What a probe whose runner stopped before it finished is failed with, whoever notices. */
export const RUNNER_STOPPED = 'The worker running this probe stopped before it finished.';

/**
 * A process's start time (clock ticks since the machine booted, from /proc): with the pid it
 * names one process, even once the pid is reused. '' where /proc cannot tell.
 */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may hold spaces and parentheses; starttime is the 22nd.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** The pid namespace this process sees pids in (Linux), '' where /proc cannot tell. */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** Where pids mean the same process as here: this machine, and this pid namespace (containers). */
const PID_SCOPE = `${hostname()}|${pidNamespace()}`;

/** This process as a probe's runner: `<host>|<pid namespace>/<pid>/<start time>`. */
export const THIS_RUNNER = `${PID_SCOPE}/${process.pid}/${startTime(process.pid)}`;

/**
 * True when the process `runner` names is gone: it ran where its pid means what it means here
 * (the processes sharing a SQLite store share a machine), and no process has the pid, or one
 * started at another time does. A runner of another machine or container is never judged gone.
 */
export function runnerGone(runner: string): boolean {
  const [scope, pid, started] = runner.split('/');
  if (scope !== PID_SCOPE) return false;
  try {
    process.kill(Number(pid), 0);
  } catch (error) {
    // EPERM: a process of another user has the pid.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  const now = startTime(Number(pid));
  return Boolean(started && now && now !== started);
}

import { readFileSync } from 'node:fs';
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

/** This process as a probe's runner: `<host>/<pid>/<start time>`. */
export const THIS_RUNNER = `${hostname()}/${process.pid}/${startTime(process.pid)}`;

/**
 * True when the process `runner` names is gone: it ran on this machine (the processes sharing
 * a SQLite store share one), and no process has its pid, or one started at another time does.
 * A runner on another machine is never judged gone.
 */
export function runnerGone(runner: string): boolean {
  const [host, pid, started] = runner.split('/');
  if (host !== hostname()) return false;
  try {
    process.kill(Number(pid), 0);
  } catch (error) {
    // EPERM: a process of another user has the pid.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  const now = startTime(Number(pid));
  return Boolean(started && now && now !== started);
}

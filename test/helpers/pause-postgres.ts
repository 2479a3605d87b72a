import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pauses a PostgreSQL server (SIGSTOP to the postmaster and every process under it): it then
 * hangs instead of refusing, as a frozen machine or a stalled disk does, its sockets open and
 * silent. Answers the function that resumes them (SIGCONT).
 */
export function pausePostgres(postmasterPid: number): () => void {
  const pids = [postmasterPid, ...descendants(postmasterPid)];
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone meanwhile.
      }
    }
  };
}

function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command, which may hold spaces, in parentheses: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Ended while listed.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

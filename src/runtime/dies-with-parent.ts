import { existsSync } from 'node:fs';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

/** A user to run a server program as (PostgreSQL refuses to run as root). */
export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * The program and arguments that run a managed server (Redis, PostgreSQL) so that it stops
 * when this process dies, however it dies: setpriv (util-linux) sets PR_SET_PDEATHSIG, so the
 * kernel sends the server `signal` (SIGTERM by default), and a crash never leaves an orphaned
 * server. With `runAs`, setpriv also drops to that user, which needs it; without setpriv the
 * program runs as is.
 */
export function diesWithParent(program: string, args: string[], runAs: RunAs | null = null, signal: 'TERM' | 'KILL' = 'TERM'): [string, string[]] {
  if (runAs && !SETPRIV) throw new Error(`running as root without setpriv (util-linux): cannot start ${program} as an unprivileged user`);
  if (!SETPRIV) return [program, args];
  const user = runAs ? [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, '--clear-groups'] : [];
  return [SETPRIV, [...user, '--pdeathsig', signal, '--', program, ...args]];
}

/**
 * `fork` options that run a Node child under setpriv, as `diesWithParent` runs a server, so
 * the kernel sends it `signal` when this process dies; none without setpriv. The kernel
 * watches the thread that forks: fork from one that lives as long as the child should (a
 * worker thread's end kills its children too).
 */
export function forkDyingWithParent(signal: 'TERM' | 'KILL'): { execPath?: string; execArgv?: string[] } {
  const [program, args] = diesWithParent(process.execPath, process.execArgv, null, signal);
  return program === process.execPath ? {} : { execPath: program, execArgv: args };
}

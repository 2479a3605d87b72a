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
 * kernel sends the server SIGTERM, and a crash never leaves an orphaned server. With `runAs`,
 * setpriv also drops to that user, which needs it; without setpriv the program runs as is.
 */
export function diesWithParent(program: string, args: string[], runAs: RunAs | null = null): [string, string[]] {
  if (runAs && !SETPRIV) throw new Error(`running as root without setpriv (util-linux): cannot start ${program} as an unprivileged user`);
  if (!SETPRIV) return [program, args];
  const user = runAs ? [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, '--clear-groups'] : [];
  return [SETPRIV, [...user, '--pdeathsig', 'TERM', '--', program, ...args]];
}

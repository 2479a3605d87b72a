import { descendantsOf } from '../../chaos/lib/supervised-service.js';

/**
 * Pauses a PostgreSQL server (SIGSTOP to the postmaster and every process under it): it then
 * hangs instead of refusing, as a frozen machine or a stalled disk does, its sockets open and
 * silent. Answers the function that resumes them (SIGCONT).
 */
export function pausePostgres(postmasterPid: number): () => void {
  const pids = [postmasterPid, ...descendantsOf(postmasterPid)];
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

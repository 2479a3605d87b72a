import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { BackendStore } from '../db/dialect.js';
import { DataDirBusyError, lockDataDir, type PidFiles } from '../runtime/data-dir-lock.js';
import { ImportRefused } from './import-refused.js';

class StaleChild extends Error {}

/**
 * Holds DATA_DIR's lock for the import, as `npm start` takes it: refuses while a supervisor
 * serves this DATA_DIR, and while a process a crashed start left behind still runs (which a
 * start would stop; an import only says so). While the import holds it, no start can begin.
 */
export async function holdDataDir(dataDir: string): Promise<PidFiles> {
  try {
    return await lockDataDir(dataDir, ({ name, pid }) => {
      throw new StaleChild(`the ${name} process (pid ${pid}) a previous \`npm start\` left running still serves DATA_DIR ${dataDir}`);
    });
  } catch (error) {
    if (error instanceof DataDirBusyError) {
      throw new ImportRefused(
        `our service is running on this store: ${error.message.replace(/; stop it first.*$/, '')}. Stop it first (Ctrl-C in its terminal, or \`kill -TERM ${error.pid}\`), then import again. Nothing was written.`,
      );
    }
    if (error instanceof StaleChild) {
      releaseOwnLock(dataDir);
      throw new ImportRefused(`${error.message}: stop it (\`kill -TERM <pid>\`) or start and stop the service once, then import again. Nothing was written.`);
    }
    throw error;
  }
}

function releaseOwnLock(dataDir: string): void {
  const file = join(dataDir, 'run', 'supervisor.pid');
  try {
    if (Number(readFileSync(file, 'utf8').split('\n')[0]) === process.pid) rmSync(file, { force: true });
  } catch {
    // Nothing held.
  }
}

/**
 * On PostgreSQL the service may run on other machines, which DATA_DIR's lock does not see:
 * any other session on the target database (an API, a worker, the auth service) refuses the
 * import. This process's own pool holds one connection at this point.
 */
export async function refuseOtherSessions(store: BackendStore, label: string): Promise<void> {
  if (store.engine !== 'postgres') return;
  // A killed import's session ends a moment after its process: look a few times before refusing.
  let rows = await otherSessions(store);
  for (let look = 1; look < SESSION_LOOKS && rows.length > 0; look++) {
    await sleep(SESSION_LOOK_MS);
    rows = await otherSessions(store);
  }
  if (rows.length === 0) return;
  const who = rows.slice(0, 5).map((r) => `pid ${r.pid}${r.client_addr ? ` from ${r.client_addr}` : ''}${r.application_name ? ` (${r.application_name})` : ''}`).join(', ');
  throw new ImportRefused(
    `${label} has ${rows.length} other session(s) open (${who}): stop every API, worker and auth process on this store, then import again. Nothing was written.`,
  );
}

/** How often, and how far apart (ms), other sessions are looked for. */
const SESSION_LOOKS = 10;
const SESSION_LOOK_MS = 300;

async function otherSessions(store: BackendStore) {
  const { rows } = await sql<{ pid: number; application_name: string; client_addr: string | null }>`
    SELECT pid, application_name, client_addr::text AS client_addr FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`.execute(store.db);
  return rows;
}

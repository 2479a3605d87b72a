import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.js';

/**
 * A throwaway PostgreSQL cluster for the calling test file, started on first use (only the
 * files that need PostgreSQL pay for its `initdb`), with one fresh database per call of
 * `database()`. Call `stopTestPostgres()` in the file's `afterAll`.
 */
let cluster: { server: ManagedPostgres; dir: string } | null = null;
let databases = 0;

export async function startTestPostgres(): Promise<ManagedPostgres> {
  if (!cluster) {
    // Under tmpdir() (usually /tmp): short enough for the socket path, and reachable by the server's user.
    const dir = mkdtempSync(join(tmpdir(), 'evb-pg-'));
    try {
      cluster = { server: await startManagedPostgres({ dir }), dir };
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }
  return cluster.server;
}

/** A new, empty database on the file's cluster; answers its URL. */
export async function testDatabase(): Promise<string> {
  const server = await startTestPostgres();
  databases += 1;
  return server.createDatabase(`test_${process.pid}_${databases}`);
}

export async function stopTestPostgres(): Promise<void> {
  if (!cluster) return;
  const { server, dir } = cluster;
  cluster = null;
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

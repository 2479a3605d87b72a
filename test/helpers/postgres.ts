import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { startManagedPostgres, type ManagedPostgres } from '../../src/db/managed-postgres.js';

let databases = 0;

/**
 * A new database on the run's PostgreSQL cluster (test/global-setup.ts): empty, or with
 * `migrated` a copy of the migrated template, which costs a file copy instead of the
 * migrations. Answers its URL; `dropTestDatabase` removes it.
 */
export async function testDatabase({ migrated = false }: { migrated?: boolean } = {}): Promise<string> {
  databases += 1;
  const name = `test_${process.pid}_${databases}`;
  await maintenance(`CREATE DATABASE ${name}${migrated ? ` TEMPLATE ${inject('postgres').template}` : ''}`);
  const url = `postgres://postgres@/${name}?host=${encodeURIComponent(inject('postgres').dir)}`;
  // A copy would share the template's store id (migration 0083); a migrated store has its own.
  if (migrated) await run(url, "UPDATE store_meta SET value = replace(gen_random_uuid()::text, '-', '') WHERE key = 'store_id'");
  return url;
}

/** Drops a database `testDatabase` made, ending whatever sessions are still connected to it. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = /^postgres:\/\/postgres@\/(test_\d+_\d+)\?/.exec(url)?.[1];
  if (!name) throw new Error(`${url} is not a test database`);
  await maintenance(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * A PostgreSQL outage of one test database: ends every session on it and refuses new ones
 * (as a server restarting or failing over does), until `heal()`.
 */
export async function databaseOutage(url: string): Promise<{ heal(): Promise<void> }> {
  const name = /^postgres:\/\/postgres@\/(test_\d+_\d+)\?/.exec(url)?.[1];
  if (!name) throw new Error(`${url} is not a test database`);
  const admin = new pg.Client({ connectionString: inject('postgres').url });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  return {
    async heal() {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    },
  };
}

const maintenance = (statement: string) => run(inject('postgres').url, statement);

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A throwaway PostgreSQL cluster of the calling test file's own, for tests that stop it or
 * look at its process; started on first use. Call `stopTestPostgres()` in the file's `afterAll`.
 */
let cluster: { server: ManagedPostgres; dir: string } | null = null;

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

export async function stopTestPostgres(): Promise<void> {
  if (!cluster) return;
  const { server, dir } = cluster;
  cluster = null;
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

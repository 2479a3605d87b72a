import { execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { diesWithParent } from '../runtime/dies-with-parent.js';
import { SECOND } from '../time.js';

/**
 * A throwaway PostgreSQL cluster owned by this process, for tests and benches: `initdb`
 * into a folder, the server listening on a unix socket in that folder only (no TCP),
 * stopped by `stop()` or, through setpriv's parent-death signal, when this process dies.
 * It is started the way src/redis/managed-redis.ts starts redis-server.
 */
export interface ManagedPostgres {
  /** `postgres://postgres@/postgres?host=<socket folder>`: the cluster's maintenance database. */
  url: string;
  pid: number;
  /** Creates an empty database (owned by the superuser) and answers its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export interface ManagedPostgresOptions {
  /** Folder for the cluster's files and its socket. Created when missing; handed to the server's user. A cluster already in it is started again. */
  dir: string;
  /** How long to wait for the server to accept connections (default 30 s). */
  startTimeoutMs?: number;
  /**
   * Keep every commit a kill -9 of the server would otherwise lose (default false: a throwaway
   * cluster runs with fsync and synchronous_commit off). A scenario that kills the server and
   * checks what it acknowledged sets it.
   */
  durable?: boolean;
}

const SUPERUSER = 'postgres';
// sockaddr_un.sun_path holds 108 bytes; the server names its socket `.s.PGSQL.5432` in the folder.
const MAX_SOCKET_FOLDER = 100 - '/.s.PGSQL.5432'.length;

/**
 * The folder holding `initdb` and `postgres`: Debian's packages put them under
 * /usr/lib/postgresql/<major>/bin, off PATH; the newest major wins. Null when none is found.
 */
export function findPostgresBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const major of majors) {
    const bin = join(root, major, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return null;
}

export async function startManagedPostgres(options: ManagedPostgresOptions): Promise<ManagedPostgres> {
  const bin = findPostgresBinaries();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin; install the `postgresql` package');
  const dir = resolve(options.dir);
  if (dir.length > MAX_SOCKET_FOLDER) throw new Error(`${dir} is too long for a unix socket path; use a shorter folder`);
  mkdirSync(dir, { recursive: true });
  const runAs = unprivilegedUser();
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  const data = join(dir, 'data');

  // ICU's en-US collation (not C) is the cluster default on purpose: a column that sorts text
  // without its COLLATE "C" then orders differently from SQLite, and the tests see it. Before
  // PostgreSQL 15 initdb cannot choose ICU; the schema test still checks every column's collation.
  const major = Number(/\/(\d+)\/bin$/.exec(bin)?.[1]);
  const collation = major >= 15 ? ['--locale-provider', 'icu', '--icu-locale', 'en-US'] : [];
  // A folder that holds a cluster already (stopped earlier) is started again as it is.
  if (!existsSync(join(data, 'PG_VERSION'))) {
    await promisify(execFile)(...diesWithParent(join(bin, 'initdb'), [
      '--pgdata', data, '--username', SUPERUSER, '--auth', 'trust', '--encoding', 'UTF8', '--no-sync', '--locale', 'C.UTF-8', ...collation,
    ], runAs), { cwd: dir });
  }

  const [program, args] = diesWithParent(join(bin, 'postgres'), [
    '-D', data,
    '-k', dir,
    '-c', 'listen_addresses=',
    // A throwaway cluster: durability only costs time here, unless asked for.
    ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    '-c', 'max_connections=200',
  ], runAs);
  const child = spawn(program, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const spawnError = new Promise<Error>((done) => child.once('error', done));
  const url = `postgres://${SUPERUSER}@/postgres?host=${encodeURIComponent(dir)}`;

  const timeout = options.startTimeoutMs ?? 30 * SECOND;
  const deadline = Date.now() + timeout;
  for (;;) {
    const failure = await Promise.race([
      exited.then((code) => new Error(`postgres exited with code ${code}: ${stderr.trim()}`)),
      spawnError.then((error) => new Error(`postgres could not be started: ${error.message}`, { cause: error })),
      sleep(50).then(() => undefined),
    ]);
    if (failure) throw failure;
    if (await acceptsConnections(url)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`postgres did not accept connections within ${timeout} ms: ${stderr.trim()}`);
    }
  }

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // SIGTERM is PostgreSQL's smart shutdown: it waits for open sessions to end. A pool's
    // end() resolves before its sockets have closed, and a fast shutdown would send those an
    // error nothing listens to any more. Sessions still open after a while are ended (SIGINT).
    child.kill('SIGTERM');
    const fast = setTimeout(() => child.kill('SIGINT'), 5 * SECOND);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15 * SECOND);
    await exited;
    clearTimeout(fast);
    clearTimeout(timer);
  };
  const createDatabase = async (name: string) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name "${name}" must be lower-case letters, digits and underscores`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return `postgres://${SUPERUSER}@/${name}?host=${encodeURIComponent(dir)}`;
  };
  return { url, pid: child.pid!, createDatabase, stop };
}

/** PostgreSQL refuses to run as root: when we are root, the server runs as `postgres` (or `nobody`). */
function unprivilegedUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const entry = readPasswd().find((fields) => fields[0] === name);
    if (entry) return { name, uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  throw new Error('running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as');
}

function readPasswd(): string[][] {
  return existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8').split('\n').filter(Boolean).map((line) => line.split(':')) : [];
}

async function acceptsConnections(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: SECOND });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAuthApp } from '../../src/auth/app.js';
import { AUTH_MIGRATIONS, openAuthStore } from '../../src/auth/auth-store.js';
import { sqliteStore } from '../../src/db/dialect.js';
import type { CliIo } from '../../src/cli/cli-io.js';
import { runCli } from '../../src/cli/main.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';

const BIN = resolve(__dirname, '../../bin/eval-backend.mjs');

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'evb-accounts-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

async function addInProcess(args: string[], stdin: string | null, env: Record<string, string> = { DATA_DIR: dataDir }) {
  const stdout = new Capture();
  const stderr = new Capture();
  const io: CliIo = { stdout, stderr, env, cwd: tmpdir(), signal: new AbortController().signal, ...(stdin === null ? {} : { stdin: Readable.from([stdin]) }) };
  return { code: await runCli(['accounts', 'add', ...args], io), stdout: stdout.text, stderr: stderr.text };
}

describe('eval-backend accounts add, and REGISTRATION=closed', () => {
  let db: Database;
  let auth: FastifyInstance;

  beforeAll(async () => {
    // The command, as an operator runs it: the password on standard input, DATA_DIR from the environment.
    const made = spawnSync(process.execPath, [BIN, 'accounts', 'add', 'ada', '--display-name', 'Ada L.'], {
      input: 'a long enough password\n',
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^Added account ada \(.+\)\.\n$/);
    db = openDatabase(join(dataDir, 'auth.sqlite'), AUTH_MIGRATIONS);
    auth = await buildAuthApp({ store: sqliteStore(db), tokenLifetimeMs: null, registration: 'closed' });
  }, 60_000);
  afterAll(async () => {
    await auth?.close();
    db?.close();
  });

  it('refuses self-registration with 403 forbidden, and the account the operator made logs in', async () => {
    const register = await auth.inject({ method: 'POST', url: '/auth/register', payload: { username: 'mallory', password: 'a long enough password', displayName: 'M' } });
    expect(register.statusCode).toBe(403);
    expect(register.json()).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('REGISTRATION=closed') } });
    const login = await auth.inject({ method: 'POST', url: '/auth/login', payload: { username: 'ada', password: 'a long enough password' } });
    expect(login.statusCode).toBe(200);
    expect(login.json().account).toMatchObject({ username: 'ada', displayName: 'Ada L.' });
  });

  it('exits 1 on a taken username and 2 on a bad one, a short password or no standard input, adding nothing', async () => {
    const taken = await addInProcess(['ADA'], 'another long password\n');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('taken');
    const badName = await addInProcess(['no spaces'], 'a long enough password\n');
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('username');
    const short = await addInProcess(['bob'], 'short\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('password');
    expect((await addInProcess(['bob'], null)).code).toBe(2);
    expect(db.prepare('SELECT username FROM accounts ORDER BY username').pluck().all()).toEqual(['ada']);
  });
});

describe('eval-backend accounts add with AUTH_DATABASE_URL', () => {
  afterAll(() => stopTestPostgres());

  it('makes the account in that PostgreSQL database, migrating it first', async () => {
    const url = await testDatabase();
    const env = { DATA_DIR: dataDir, AUTH_DATABASE_URL: url };
    expect(await addInProcess(['grace', '--display-name', 'Grace H.'], 'a long enough password\n', env)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Added account grace /) });
    expect((await addInProcess(['GRACE'], 'another long password\n', env)).code).toBe(1);
    const store = await openAuthStore({ url });
    try {
      expect(await store.db.selectFrom('accounts').select(['username', 'display_name']).execute()).toEqual([{ username: 'grace', display_name: 'Grace H.' }]);
    } finally {
      await store.db.destroy();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.js';
import { runCli } from '../../src/cli/main.js';
import { postgresPool, sqliteStore } from '../../src/db/dialect.js';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { runRows } from '../../src/runs/run-rows.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';
import { runRecord } from '../helpers/run-record-builder.js';

const PASSWORD = 'hunter2-secret';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evb-store-copy-cli-'));
  const db = openDatabase(join(dir, 'store.sqlite'));
  const record = runRecord({ id: 'run-1' });
  await runRows(sqliteStore<StoreSchema>(db)).store({ id: 'run-1', jobId: null, record: JSON.stringify(record), recordFormat: 1, decodeError: null, events: '[]', lifted: decodeRunRecord(record).lifted });
  db.close();
});
afterAll(async () => {
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const io: CliIo = { stdout, stderr, env: {}, cwd: dir, signal: new AbortController().signal };
  return { code: await runCli(args, io), stdout: stdout.text, stderr: stderr.text };
}

/** The test cluster trusts local connections, so a password in the URL is carried and ignored: the command must never print it. */
const withPassword = (url: string) => url.replace('postgres://postgres@', `postgres://postgres:${PASSWORD}@`);

describe('eval-backend store copy', () => {
  it('copies a SQLite file into PostgreSQL, prints each table checked, and never the password', async () => {
    const url = withPassword(await testDatabase());
    const copied = await cli(['store', 'copy', '--from', 'store.sqlite', '--to', url]);
    expect(copied.stderr).not.toContain(PASSWORD);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/^table +rows +checksum +ok$/m);
    expect(copied.stdout).toMatch(/^runs +1 +[0-9a-f]{16} +ok$/m);
    expect(copied.stdout).toContain('postgres://postgres:***@');
    expect(copied.stdout).not.toContain(PASSWORD);

    const again = await cli(['store', 'copy', '--from', 'store.sqlite', '--to', `${url}&password=${PASSWORD}`]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already holds rows: .*runs \(1\).*--replace/);
    expect(again.stdout + again.stderr).not.toContain(PASSWORD);

    const replaced = await cli(['store', 'copy', '--from', 'store.sqlite', '--to', url, '--replace']);
    expect(replaced.code, replaced.stderr).toBe(0);
  });

  it('exits 1 and marks the table when what it reads back differs from what it copied', async () => {
    // A target someone changed outside the migrations: a trigger that rewrites every run record on its way in.
    const url = await testDatabase();
    const pool = postgresPool({ connectionString: url });
    try {
      await migratePostgres(pool);
      await pool.query(`CREATE FUNCTION pad_record() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.record := NEW.record || ' '; RETURN NEW; END $$;
        CREATE TRIGGER pad_record BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION pad_record();`);
    } finally {
      await pool.end();
    }
    const copied = await cli(['store', 'copy', '--from', 'store.sqlite', '--to', url]);
    expect(copied.code).toBe(1);
    expect(copied.stdout).toMatch(/^runs +1 +[0-9a-f]{16} -> [0-9a-f]{16} +MISMATCH$/m);
    expect(copied.stdout).toMatch(/^store_meta +\d+ +[0-9a-f]{16} +ok$/m);
    expect(copied.stderr).toMatch(/1 table\(s\) differ after the copy: runs/);
  });

  it('answers 2 with one line when the source is not a store', async () => {
    const missing = await cli(['store', 'copy', '--from', 'nowhere.sqlite', '--to', 'copy.sqlite']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^eval-backend: store copy failed: .*nowhere\.sqlite/m);
  });

  it('says in its help that the service must be stopped', async () => {
    const help = await cli(['store', 'copy', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Stop the service/);
    expect(help.stdout).toMatch(/--replace/);
  });
});

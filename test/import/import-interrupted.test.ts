import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/db/open-store.js';
import { stopTestPostgres } from '../helpers/postgres.js';
import { addRuns, createOriginalSchema, fillOriginalStore, fixtureWriter } from './fixtures/original-store.js';
import { importCli, importTarget, tableOf } from './import-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BULK = 1500;
const TOTAL = BULK + 7;

afterAll(async () => {
  await stopTestPostgres();
});

async function runsHeld(env: Record<string, string>): Promise<number> {
  const opened = await openStore(loadConfig(env));
  try {
    return Number((await opened.store.db.selectFrom('runs').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
  } finally {
    await opened.close();
  }
}

describe('an import killed part way', () => {
  it('(kill -9) is finished by running it again, with nothing doubled and every table balanced', async () => {
    const target = await importTarget();
    const source = join(target.dataDir, 'original.sqlite');
    const writer = await fixtureWriter('sqlite', source);
    await createOriginalSchema(writer, 'sqlite', 57);
    await fillOriginalStore(writer, 57);
    await writer.exec('BEGIN');
    await addRuns(writer, BULK, 4096);
    await writer.exec('COMMIT');
    await writer.close();

    const child = spawn(process.execPath, [join(ROOT, 'bin/eval-backend.mjs'), 'import-original', '--from', source, '--accept-unreadable', '--batch-rows', '25'], {
      cwd: ROOT,
      env: { ...process.env, ...target.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const written = [...stderr.matchAll(/run: \d+ read, (\d+) written/g)].map((m) => Number(m[1]));
        if (written.some((n) => n >= 200)) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`the import ended before it could be killed:\n${stderr}`)));
    });
    expect(await exited).toBe('SIGKILL');
    const partial = await runsHeld(target.env);
    expect(partial).toBeGreaterThanOrEqual(200);
    expect(partial).toBeLessThan(TOTAL);

    const finish = await importCli(target.env, ['--from', source, '--accept-unreadable']);
    expect(finish.code, finish.stdout + finish.stderr).toBe(0);
    const runs = tableOf(finish.report!, 'run');
    expect(runs).toMatchObject({ read: TOTAL, imported: TOTAL - 2, importedUnreadable: 2, written: TOTAL - partial, balanced: true });
    expect(await runsHeld(target.env)).toBe(TOTAL);

    const again = await importCli(target.env, ['--from', source, '--accept-unreadable']);
    expect(tableOf(again.report!, 'run')).toMatchObject({ written: 0, balanced: true, mappedDigest: runs.mappedDigest, verbatimDigest: runs.verbatimDigest });
  }, 240_000);
});

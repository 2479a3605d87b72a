import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { CliIo } from '../../src/cli/cli-io.js';
import { runCli } from '../../src/cli/main.js';
import type { ImportReport } from '../../src/import/import-original.js';
import { TEST_ENGINE } from '../helpers/test-backend.js';
import { testDatabase } from '../helpers/postgres.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

/** A target for imports on the test run's engine: a fresh DATA_DIR, and in the PostgreSQL half a fresh migrated database. */
export async function importTarget(): Promise<{ dataDir: string; env: Record<string, string> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'evb-import-'));
  const databaseUrl = TEST_ENGINE === 'postgres' ? await testDatabase({ migrated: true }) : null;
  return { dataDir, env: { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } };
}

/** `eval-backend import-original …` in this process, with its output and the JSON ledger it wrote. */
export async function importCli(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string; report: ImportReport | null }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const reportFile = join(env.DATA_DIR!, `report-${Math.random().toString(36).slice(2)}.json`);
  const io: CliIo = { stdout, stderr, env, cwd: env.DATA_DIR!, signal: new AbortController().signal };
  const code = await runCli(['import-original', ...args, '--report', reportFile], io);
  let report: ImportReport | null = null;
  try {
    report = JSON.parse((await import('node:fs')).readFileSync(reportFile, 'utf8')) as ImportReport;
  } catch {
    report = null;
  }
  return { code, stdout: stdout.text, stderr: stderr.text, report };
}

export const tableOf = (report: ImportReport, table: string) => {
  const found = report.tables.find((t) => t.table === table);
  if (!found) throw new Error(`no ledger line for ${table}`);
  return found;
};

import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs the suite twice (scripts/bootstrap.mjs): on SQLite, then with
 * TEST_STORE=postgres on PostgreSQL. The PostgreSQL half runs the files test/postgres-half.txt
 * lists (one path or glob a line, `#` comments) until every store module runs there.
 */
const postgresHalf = process.env.TEST_STORE === 'postgres';

function listedFiles(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').map((line) => line.replace(/#.*/, '').trim()).filter(Boolean);
}

export default defineConfig({
  test: {
    include: postgresHalf ? listedFiles('test/postgres-half.txt') : ['test/**/*.test.ts'],
    // A file named on the command line that the PostgreSQL half does not list yet is skipped there, not a failure.
    passWithNoTests: postgresHalf,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Files share one redis-server, one PostgreSQL cluster and (for rendering) the system Chromium; two cores.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

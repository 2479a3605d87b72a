import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs the suite twice (scripts/bootstrap.mjs): on SQLite, then with
 * TEST_STORE=postgres on PostgreSQL. A test that is about SQLite itself skips the PostgreSQL
 * half, saying why (`TEST_ENGINE` in test/helpers/test-backend.ts).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Files share one redis-server, one PostgreSQL cluster and (for rendering) the system Chromium; two cores.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGroups, readVersion, scanCheckout } from '../../src/catalog/index.js';
import { hasSharedFixture, SHARED_FIXTURE_CATALOG as FIXTURE } from '../helpers/example-catalog.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

/**
 * The contract requires ingest to accept the real catalog in `../shared/fixtures/catalog`
 * unchanged. That folder sits beside the checkout in CI, not in a bare clone, so these run
 * only when it is there; every behaviour they rely on is also tested on the project's own
 * examples/catalog.
 */
const SKIP_REASON = 'runs only with ../shared/fixtures/catalog beside the checkout';
if (!hasSharedFixture) console.log(`Skipping the shared fixture catalog tests: this suite ${SKIP_REASON} (no ${FIXTURE}).`);

const VERSIONS = [
  { kind: 'game-jam', slug: 'grace-period', version: 'v1.0.0', relDir: 'game-jams/grace-period/v1.0.0' },
  { kind: 'test-case', slug: 'coin-spin', version: 'v1.0.0', relDir: 'test-cases/asset-generation/easy/coin-spin/v1.0.0' },
  { kind: 'test-case', slug: 'pong', version: 'v1.1.0', relDir: 'test-cases/end-to-end/easy/carom/v1.1.0' },
  { kind: 'test-case', slug: 'floe', version: 'v3.0.0', relDir: 'test-cases/end-to-end/easy/floe/v3.0.0' },
];

describe.skipIf(!hasSharedFixture)(`the shared fixture catalog, accepted unchanged (${SKIP_REASON})`, () => {
  it('scans to its four versions and its group file, with no problems', async () => {
    const { versions, problems, groupFiles } = await scanCheckout(FIXTURE);
    expect(problems).toEqual([]);
    expect(versions.map(({ kind, slug, version, relDir }) => ({ kind, slug, version, relDir }))).toEqual(VERSIONS);
    expect(groupFiles).toEqual(['test-case-groups/arcade-physics/test-case-group.toml']);
  });

  it('reads every version with the real reader, keyed by its manifest slug', async () => {
    const records = await Promise.all(VERSIONS.map(({ relDir }) => readVersion(FIXTURE, join(FIXTURE, relDir))));
    expect(records.map(({ record }) => `${record.slug}@${record.version}:${record.testType}:${record.engineFormat}`)).toEqual([
      'grace-period@v1.0.0:game-jam:false', 'coin-spin@v1.0.0:asset-generation:false', 'pong@v1.1.0:end-to-end:false', 'floe@v3.0.0:end-to-end:true',
    ]);
    const floe = records[3]!.record;
    expect(floe.commonReviewItems.every((item) => item.failureCap && item.domains?.length)).toBe(true);
  });

  it('reads its group', async () => {
    const { groups, problems } = await readGroups(FIXTURE);
    expect(problems).toEqual([]);
    expect(groups).toEqual([expect.objectContaining({ slug: 'arcade-physics', cases: expect.arrayContaining(['pong']) })]);
  });

  describe('ingested over HTTP', () => {
    let backend: TestBackend;
    beforeAll(async () => {
      backend = await startTestBackend({ CATALOG_DIR: FIXTURE });
    });
    afterAll(() => backend.close());

    it('stores and renders every version, then serves them', async () => {
      const report = (await backend.app.inject({ method: 'POST', url: '/ingest' })).json();
      expect(report).toMatchObject({ total: 4, ingested: 4, failed: 0 });
      const { testCases } = (await backend.app.inject('/test-cases')).json();
      expect(testCases.map((entry: { slug: string }) => entry.slug)).toEqual(['coin-spin', 'floe', 'grace-period', 'pong']);
      const gameplay = await backend.app.inject('/test-cases/pong/versions/v1.1.0/references/_common/gameplay.png');
      expect(gameplay.headers['content-type']).toBe('image/png');
      expect((await backend.app.inject('/test-cases/floe/versions/v3.0.0/validation-files')).json().length).toBeGreaterThan(100);
    });
  });
});

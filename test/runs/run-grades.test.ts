import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogIndex } from '../../src/catalog/catalog-index.js';
import { runGrades } from '../../src/runs/run-grades.js';
import type { StoredReview } from '../../src/runs/run-rows.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { seedRun } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
});
afterAll(() => backend.close());

const review: StoredReview = {
  reviewerId: 'acct-1', reviewer: 'Ada', username: 'ada', ratings: [], aesthetic: null, writeup: 'Solid.',
  checklist: [], reviewedAt: new Date().toISOString(), editedAt: null, revisions: [],
};

describe('regrading', () => {
  it('never overwrites a grade that counts a review stored while it was reading the catalog', async () => {
    await seedRun(backend, runRecord({ id: 'graded-run' }));
    const { rows, grades } = backend.app.runs;
    const { index, versions } = backend.app.catalog;
    // The same store, with its catalog read held open: the window a slow read leaves.
    let open!: () => void;
    const held = new Promise<void>((done) => (open = done));
    const slow: CatalogIndex = { ...index, versionsOf: async (slug) => (await held, index.versionsOf(slug)) };
    const stale = runGrades({ store: backend.store, rows, index: slow, versions }).regradeById('graded-run');

    await rows.putReview('graded-run', review);
    await grades.regradeById('graded-run');
    expect((await rows.get('graded-run'))!.review_count).toBe(1);
    open();
    await stale;
    expect((await rows.get('graded-run'))!.review_count).toBe(1);
  });

  it('freshens a page over many cases with one catalog read, and regrades the runs of a version ingested since', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `page-run-${i}`);
    for (const [i, id] of ids.entries()) await seedRun(backend, runRecord({ id, slug: `page-case-${i % 6}`, version: `v1.${i % 2}.0` }));
    const { rows } = backend.app.runs;
    const { index, versions } = backend.app.catalog;
    let reads = 0;
    const counted = Object.fromEntries(Object.entries(index).map(([name, read]) => [name, (...args: unknown[]) => (reads++, (read as (...a: unknown[]) => unknown)(...args))])) as CatalogIndex;
    const grades = runGrades({ store: backend.store, rows, index: counted, versions });
    const page = async () => Promise.all(ids.map(async (id) => (await rows.get(id))!));

    expect((await grades.freshen(await page())).map((row) => row.grade_key)).toEqual(ids.map(() => '|'));
    expect(reads).toBe(1);

    // page-case-1 v1.1.0 ingested after its runs (1 and 7) were graded.
    const ingestedAt = '2026-01-01T00:00:00.000Z';
    await index.put({ slug: 'page-case-1', version: 'v1.1.0', recordFormat: 1, storeDir: 'page-case-1/v1.1.0', fingerprint: 'f', contentHash: 'h', experimental: false, ingestedAt });
    const expectedKey = (id: string) => (id === 'page-run-1' || id === 'page-run-7' ? `${ingestedAt}|${ingestedAt}` : '|');
    expect((await grades.freshen(await page())).map((row) => [row.id, row.grade_key])).toEqual(ids.map((id) => [id, expectedKey(id)]));
    expect((await page()).map((row) => [row.id, row.grade_key])).toEqual(ids.map((id) => [id, expectedKey(id)]));
  });

  it('regrades the stale runs of every case at once, and nothing when none is stale', async () => {
    for (const [i, version] of ['v1.0.0', 'v2.0.0', 'v2.0.0'].entries()) await seedRun(backend, runRecord({ id: `stale-run-${i}`, slug: 'stale-case', version }));
    const { rows, grades } = backend.app.runs;
    const ingestedAt = '2026-02-01T00:00:00.000Z';
    await backend.app.catalog.index.put({ slug: 'stale-case', version: 'v2.0.0', recordFormat: 1, storeDir: 'stale-case/v2.0.0', fingerprint: 'f', contentHash: 'h', experimental: false, ingestedAt });

    expect(await grades.regradeStale()).toBe(3);
    // v1.0.0's runs are stale too: their case's latest version (the case name's source) moved.
    expect(await Promise.all(['stale-run-0', 'stale-run-1', 'stale-run-2'].map(async (id) => (await rows.get(id))!.grade_key)))
      .toEqual([`|${ingestedAt}`, `${ingestedAt}|${ingestedAt}`, `${ingestedAt}|${ingestedAt}`]);
    expect(await grades.regradeStale()).toBe(0);
  });
});

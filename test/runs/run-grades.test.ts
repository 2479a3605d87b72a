import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredVersions } from '../../src/catalog/stored-versions.js';
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
    const slow: StoredVersions = { ...versions, get: async (slug, version) => (await held, versions.get(slug, version)) };
    const stale = runGrades({ store: backend.store, rows, index, versions: slow }).regradeById('graded-run');

    await rows.putReview('graded-run', review);
    await grades.regradeById('graded-run');
    expect((await rows.get('graded-run'))!.review_count).toBe(1);
    open();
    await stale;
    expect((await rows.get('graded-run'))!.review_count).toBe(1);
  });
});

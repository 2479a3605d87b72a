/**
 * Edits of one review from two API processes at once (issue 39 item 4): each edit leaves a
 * public revision, so none may be composed from a review another edit has since replaced.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { openStore, type OpenedStore } from '../../src/db/open-store.js';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const EDITS = 8;
let backend: TestBackend;
let other: { app: FastifyInstance; opened: OpenedStore };
let alice: string;

beforeAll(async () => {
  // Tokens verified once per process, so the burst below measures reviews, not the auth service.
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG, AUTH_CACHE_SECONDS: '600', REAP_ORPHANED_JOBS: 'false' });
  await ingestCatalog(backend, ['skiff-race']);
  // Another API process: its own store connection (file or pool), the same Redis, bucket and files.
  const opened = await openStore(backend.config);
  other = { app: await buildApp({ config: backend.config, db: opened.sqlite, store: opened.store }), opened };
  ({ token: alice } = await backend.auth.register('alice'));
  await seedRun(backend, runRecord({ id: 'edited' }));
});
afterAll(async () => {
  await other?.app.close();
  await other?.opened.close();
  await backend?.close();
});

const RATINGS = [{ domain: 'solo', rating: 'great' }, { domain: 'duel', rating: 'great' }];
const review = (app: FastifyInstance, payload: object) =>
  app.inject({ method: 'POST', url: '/runs/edited/reviews', headers: bearer(alice), payload: { ratings: RATINGS, ...payload } });

describe('concurrent edits of one review', () => {
  it('keep every public revision, each building on the one before', async () => {
    expect((await review(backend.app, { writeup: 'First.' })).statusCode).toBe(200);
    expect((await other.app.inject({ url: '/runs/edited', headers: bearer(alice) })).statusCode).toBe(200);
    const answers = await Promise.all(Array.from({ length: EDITS }, (_, i) =>
      review(i % 2 === 0 ? backend.app : other.app, { writeup: `Edit ${i}.`, editNote: `note ${i}` })));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);

    const detail = (await backend.app.inject({ url: '/runs/edited', headers: bearer(alice) })).json();
    const { writeup, revisions } = detail.reviews[0] as { writeup: string; revisions: Array<{ note: string; diff: { writeup: { from: string; to: string } } }> };
    expect(revisions.map((revision) => revision.note).sort()).toEqual(Array.from({ length: EDITS }, (_, i) => `note ${i}`).sort());
    // A chain: each edit's "from" is what the edit before it wrote, and the last one's "to" is what is stored.
    let before = 'First.';
    for (const { diff } of revisions) {
      expect(diff.writeup.from).toBe(before);
      before = diff.writeup.to;
    }
    expect(writeup).toBe(before);
  });
});

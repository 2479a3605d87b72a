/**
 * A NUL character in body text (issue 39 item 6): SQLite kept it and PostgreSQL refused it,
 * so one request was 200 on one engine and 400 (naming nothing) on the other. Both engines
 * now answer 400 naming the field; a driver's free-form record keeps its `\u0000`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let token: string;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG }, { pricedModels: ['vendor/m1'] });
  await ingestCatalog(backend, ['skiff-race']);
  token = (await backend.auth.register('writer')).token;
  await seedRun(backend, runRecord({ id: 'reviewed' }));
});
afterAll(() => backend?.close());

const send = (method: 'POST' | 'PUT', url: string, payload: object) => backend.app.inject({ method, url, headers: bearer(token), payload });
const RATINGS = [{ domain: 'solo', rating: 'great' }, { domain: 'duel', rating: 'great' }];

describe('a NUL character in body text', () => {
  it.each([
    ['a review writeup', '/runs/reviewed/reviews', { ratings: RATINGS, writeup: 'fine\u0000' }, 'body.writeup'],
    ['a checklist note', '/runs/reviewed/reviews', { ratings: RATINGS, writeup: 'ok', checklist: [{ id: 'finish-line', status: 'pass', note: '\u0000' }] }, 'body.checklist.0.note'],
    ['a plan name', '/coverage-plans', { name: 'a\u0000b', runsPerCell: 1 }, 'body.name'],
    ['a ladder rung slug', '/ladders', { name: 'l', runsPerCell: 1, rungs: [{ slug: 'skiff\u0000', version: 'v1.1.0', variant: 'base' }] }, 'body.rungs.0.slug'],
  ])('is 400 naming the field: %s', async (_name, url, payload, field) => {
    const answer = await send('POST', url, payload);
    expect(answer.statusCode, answer.body).toBe(400);
    expect(answer.json().error).toEqual({ code: 'bad_request', message: `${field} must not contain a NUL character (\\u0000).` });
  });

  it('stores nothing of a refused write, and the same text without the NUL is taken', async () => {
    expect((await backend.store.db.selectFrom('run_reviews').selectAll().execute())).toEqual([]);
    expect((await send('POST', '/runs/reviewed/reviews', { ratings: RATINGS, writeup: 'fine' })).statusCode).toBe(200);
  });

  it("keeps a \\u0000 in a driver's free-form record, stored as JSON text", async () => {
    const stored = await seedRun(backend, { ...runRecord({ id: 'quoted' }), quote: 'a\u0000b' });
    expect(stored.decodeError).toBeNull();
    const detail = await backend.app.inject({ url: '/runs/quoted' });
    expect(detail.statusCode, detail.body).toBe(200);
  });
});

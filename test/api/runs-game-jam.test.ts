import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let alice: string;
let bob: string;

const CATEGORIES = ['playability', 'fun', 'theme', 'presentation', 'audio', 'polish', 'creativity'];
const jam = (id: string) => runRecord({ id, slug: 'low-tide', version: 'v1.0.0', testType: 'game-jam' });

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG });
  await ingestCatalog(backend, ['low-tide', 'foghorn', 'skiff-race']);
  ({ token: alice } = await backend.auth.register('alice'));
  ({ token: bob } = await backend.auth.register('bob'));
  for (const id of ['jam', 'jam-pair', 'jam-unreviewed']) await seedRun(backend, jam(id));
  await seedRun(backend, runRecord({ id: 'declared', slug: 'foghorn', version: 'v1.0.0', testType: 'game-jam' }));
  await seedRun(backend, runRecord({ id: 'binary' }));
});
afterAll(() => backend.close());

const review = (token: string, id: string, payload: object) =>
  backend.app.inject({ method: 'POST', url: `/runs/${id}/reviews`, headers: bearer(token), payload });
/** Every category at `grade` unless overridden, plus the overall mark. */
const grades = (grade: string, overall: string, overrides: Record<string, string> = {}) => [
  ...CATEGORIES.map((id) => ({ id, status: overrides[id] ?? grade })),
  { id: 'overall', status: overall },
];
const card = async (id: string) =>
  (await backend.app.inject(`/runs?state=any&fields=summary&offset=0&limit=200`)).json().runs.find((run: { id: string }) => run.id === id);

describe('game jam reviews: 422 cases', () => {
  it.each([
    ['a pass/fail status on a graded category', 'jam', { writeup: 'x', checklist: grades('great', 'great', { fun: 'pass' }) }, '"fun" the status "pass"; "fun" is graded'],
    ['an unknown grade on the overall mark', 'jam', { writeup: 'x', checklist: grades('great', 'superb') }, '"overall" the status "superb"'],
    ['a category left ungraded', 'jam', { writeup: 'x', checklist: grades('great', 'great').filter((verdict) => verdict.id !== 'audio') }, '"audio" ungraded'],
    ['a review without the overall mark', 'jam', { writeup: 'x', checklist: grades('great', 'great').slice(0, -1) }, '"overall" ungraded'],
    ['an aesthetic tier', 'jam', { writeup: 'x', aesthetic: 'good', checklist: grades('great', 'great') }, 'aesthetic is not accepted'],
    ['a graded status on a binary item', 'binary', {
      writeup: 'x', ratings: [{ domain: 'solo', rating: 'great' }, { domain: 'duel', rating: 'great' }], checklist: [{ id: 'carrying-way', status: 'great' }],
    }, '"carrying-way" the status "great"; a verdict is pass or fail'],
    ['the overall mark on a binary checklist', 'binary', {
      writeup: 'x', ratings: [{ domain: 'solo', rating: 'great' }, { domain: 'duel', rating: 'great' }], checklist: [{ id: 'overall', status: 'great' }],
    }, '"overall", which is not a declared verdict id'],
  ])('refuses %s, naming the item', async (_name, id, payload, message) => {
    const response = await review(alice, id, payload);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error).toMatchObject({ code: 'unprocessable', message: expect.stringContaining(message) });
  });
});

describe('game jam grades', () => {
  it('serves the generic graded checklist on the resolved version', async () => {
    const version = (await backend.app.inject('/test-cases/low-tide/versions/v1.0.0')).json();
    expect(version.commonReviewItems.map((item: { id: string; graded: boolean }) => [item.id, item.graded])).toEqual(CATEGORIES.map((id) => [id, true]));
  });

  it('scores one review from its graded points and takes its overall mark, with no rating', async () => {
    const response = await review(alice, 'jam', { writeup: 'Tense and readable.', checklist: grades('great', 'incredible', { audio: 'broken', fun: 'incredible' }) });
    expect(response.statusCode, response.body).toBe(200);
    const detail = (await backend.app.inject('/runs/jam')).json();
    // Five categories at great (8), fun incredible (10), audio broken (0): 50 of 70.
    expect(detail).toMatchObject({ rating: null, aesthetic: null, validatorRated: false, score: { earned: 50, total: 70, reviews: 1, overallGrade: 'incredible' } });
    const summary = await card('jam');
    expect({ rating: summary.rating, score: summary.score }).toEqual({ rating: detail.rating, score: detail.score });
  });

  it('averages several reviews and combines their overall marks to the nearest grade, ties going down', async () => {
    expect((await review(alice, 'jam-pair', { writeup: 'Good.', checklist: grades('great', 'great') })).statusCode).toBe(200);
    expect((await review(bob, 'jam-pair', { writeup: 'Superb.', checklist: grades('incredible', 'incredible') })).statusCode).toBe(200);
    let detail = (await backend.app.inject('/runs/jam-pair')).json();
    // Mean of 56 and 70; the marks 8 and 10 average 9, equally near great and incredible.
    expect(detail.score).toEqual({ earned: 63, total: 70, reviews: 2, overallGrade: 'great' });

    const edit = await review(bob, 'jam-pair', { writeup: 'Superb.', checklist: grades('incredible', 'broken'), editNote: 'It crashed on the last level.' });
    expect(edit.json().review.revisions[0].diff.verdicts).toEqual([{ id: 'overall', from: 'incredible', to: 'broken', noteChanged: false }]);
    detail = (await backend.app.inject('/runs/jam-pair')).json();
    // 8 and 0 average 4: nearest neutral (5).
    expect(detail.score.overallGrade).toBe('neutral');
    expect((await card('jam-pair')).score).toEqual(detail.score);
  });

  it('weights the categories a jam declares itself, and refuses the generic ones on it', async () => {
    const declared = [{ id: 'heard', status: 'incredible' }, { id: 'fun', status: 'great' }, { id: 'theme', status: 'great' }, { id: 'playable', status: 'great' }, { id: 'polish', status: 'broken' }];
    const generic = await review(alice, 'declared', { writeup: 'x', checklist: grades('great', 'great') });
    expect(generic.statusCode).toBe(422);
    expect(generic.json().error.message).toContain('"playability"');
    const response = await review(alice, 'declared', { writeup: 'Played it blindfolded.', checklist: [...declared, { id: 'overall', status: 'great' }] });
    expect(response.statusCode, response.body).toBe(200);
    // heard 10 x 3, fun and theme 8 x 2, playable 8 x 1, polish 0 x 1: 70 of the weights' 9 x 10.
    expect((await backend.app.inject('/runs/declared')).json().score).toEqual({ earned: 70, total: 90, reviews: 1, overallGrade: 'great' });
  });

  it('has no score and no overall grade while unreviewed', async () => {
    expect((await backend.app.inject('/runs/jam-unreviewed')).json()).toMatchObject({ rating: null, score: null });
    expect((await card('jam-unreviewed')).score).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let alice: string;
let bob: string;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG });
  await ingestCatalog(backend, ['skiff-race', 'crabber']);
  ({ token: alice } = await backend.auth.register('alice'));
  ({ token: bob } = await backend.auth.register('bob'));
  await seedRun(backend, runRecord({ id: 'legacy' }));
  await seedRun(backend, runRecord({ id: 'legacy-2' }));
  // The validators failed the broken-capped surface item and passed the fixed-step one.
  await seedRun(backend, runRecord({ id: 'rated', slug: 'crabber', version: 'v2.0.0', verdicts: { 'surface.present': false, 'surface.fixed-step': true } }));
});
afterAll(() => backend.close());

const review = (token: string | null, id: string, payload: object) =>
  backend.app.inject({ method: 'POST', url: `/runs/${id}/reviews`, ...(token ? { headers: bearer(token) } : {}), payload });
const bothDomains = (solo: string, duel: string) => [{ domain: 'solo', rating: solo }, { domain: 'duel', rating: duel }];

describe('POST /runs/{id}/reviews: 422 cases', () => {
  it.each([
    ['no rating and no verdict', 'legacy', { writeup: 'x' }, 'no rating'],
    ['an empty writeup', 'legacy', { ratings: bothDomains('great', 'great'), writeup: '  ' }, 'writeup'],
    ['aesthetic on a legacy run', 'legacy', { ratings: bothDomains('great', 'great'), aesthetic: 'good', writeup: 'x' }, 'aesthetic is not accepted'],
    ['ratings on a validator-rated run', 'rated', { ratings: [{ domain: 'catch', rating: 'great' }], aesthetic: 'good', writeup: 'x' }, 'ratings is not accepted'],
    ['a legacy domain left unrated', 'legacy', { ratings: [{ domain: 'solo', rating: 'great' }], writeup: 'x' }, '"duel" unrated'],
    ['an undeclared domain', 'legacy', { ratings: [...bothDomains('great', 'great'), { domain: 'net', rating: 'great' }], writeup: 'x' }, '"net"'],
    ['a validator-rated review without aesthetic', 'rated', { checklist: [{ id: 'surface.present', status: 'pass' }], writeup: 'x' }, 'aesthetic is required'],
    ['an undeclared checklist id', 'legacy', { ratings: bothDomains('great', 'great'), checklist: [{ id: 'points-of-sail', status: 'pass' }], writeup: 'x' }, '"points-of-sail"'],
    ['a non-binary status', 'rated', { aesthetic: 'good', checklist: [{ id: 'surface.present', status: 'great' }], writeup: 'x' }, 'pass or fail'],
  ])('refuses %s', async (_name, id, payload, message) => {
    const response = await review(alice, id, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toMatchObject({ code: 'unprocessable' });
    expect(response.json().error.message).toContain(message);
  });

  it('needs a token (401) and a known run (404)', async () => {
    expect((await review(null, 'legacy', { writeup: 'x' })).statusCode).toBe(401);
    expect((await review(alice, 'nope', { writeup: 'x', aesthetic: 'good' })).statusCode).toBe(404);
  });
});

describe('reviews, edits and ratings', () => {
  it('takes a legacy review with sub-item verdicts, attributed from the token, and rates the run by its worst domain', async () => {
    const response = await review(alice, 'legacy', {
      ratings: bothDomains('great', 'scuffed'),
      writeup: 'Sails well.',
      checklist: [{ id: 'points-of-sail.reach', status: 'pass' }, { id: 'carrying-way', status: 'pass', note: 'coasts through a tack' }, { id: 'finish-line', status: 'fail' }],
      reviewerId: 'acct-mallory',
      reviewer: 'Mallory',
      username: 'mallory',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: 'legacy', published: false, review: { username: 'alice', reviewedAt: expect.any(String), editedAt: null, revisions: [] } });
    // Whatever the body claims, the token's account wrote it.
    expect(response.json().review).toMatchObject({ reviewer: 'alice', username: 'alice' });
    expect(response.json().review.reviewerId).not.toBe('acct-mallory');
    const detail = (await backend.app.inject('/runs/legacy')).json();
    expect(detail).toMatchObject({ rating: 'scuffed', aesthetic: null, validatorRated: false });
    // points-of-sail splits its point across two sub items: half for "reach", one for carrying-way.
    expect(detail.score).toMatchObject({ earned: 1.5, reviews: 1 });
  });

  it('makes an unchanged re-submission a no-op and an edit need a note, keeping reviewedAt and recording the diff', async () => {
    const body = { ratings: bothDomains('great', 'great'), writeup: 'First.' };
    const first = (await review(bob, 'legacy-2', body)).json().review;
    expect((await review(bob, 'legacy-2', body)).json().review).toEqual(first);
    const noNote = await review(bob, 'legacy-2', { ...body, writeup: 'Second.' });
    expect(noNote.statusCode).toBe(422);
    expect(noNote.json().error.message).toContain('editNote');
    const edited = (await review(bob, 'legacy-2', { ratings: bothDomains('great', 'broken'), writeup: 'Second.', editNote: 'The duel desyncs.' })).json().review;
    expect(edited.reviewedAt).toBe(first.reviewedAt);
    expect(edited.editedAt).not.toBeNull();
    expect(edited.revisions).toEqual([
      {
        editedAt: edited.editedAt,
        note: 'The duel desyncs.',
        diff: { ratings: [{ domain: 'duel', from: 'great', to: 'broken' }], aesthetic: null, verdicts: [], writeup: { from: 'First.', to: 'Second.' } },
      },
    ]);
    const detail = (await backend.app.inject('/runs/legacy-2')).json();
    expect(detail.reviews).toHaveLength(1);
    expect(detail.reviews[0].revisions).toHaveLength(1);
    expect(detail.rating).toBe('broken');
  });

  it('rates a validator-rated run by the validators until reviewed, then by the worst effective review', async () => {
    const before = (await backend.app.inject('/runs/rated')).json();
    expect(before).toMatchObject({ rating: 'broken', validatorRated: true, aesthetic: null, score: { reviews: 0 } });
    const total = before.score.total as number;

    // Alice overrides the failed surface item: only validator-decided passes remain, so flawless.
    const a = await review(alice, 'rated', { aesthetic: 'amazing', writeup: 'Fine.', checklist: [{ id: 'surface.present', status: 'pass' }] });
    expect(a.statusCode, a.body).toBe(200);
    expect((await backend.app.inject('/runs/rated')).json()).toMatchObject({ rating: 'flawless', aesthetic: 'amazing', score: { earned: 2, total, reviews: 1 } });

    // Bob keeps the validators' failed surface item (capped broken) and fails a point they left undecided.
    await review(bob, 'rated', { aesthetic: 'okay', writeup: 'Gulls differ.', checklist: [{ id: 'surface.seeded-reset', status: 'fail' }] });
    const after = (await backend.app.inject('/runs/rated')).json();
    expect(after).toMatchObject({ rating: 'broken', aesthetic: 'okay', score: { earned: 1.5, reviews: 2 } });
    const card = (await backend.app.inject('/runs?fields=summary&state=review&offset=0&testCase=crabber')).json().runs[0];
    expect({ rating: card.rating, score: card.score, aesthetic: card.aesthetic, reviewCount: card.reviewCount }).toEqual({
      rating: after.rating,
      score: after.score,
      aesthetic: after.aesthetic,
      reviewCount: 2,
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verdictIdsOf } from '../../src/catalog/read-review-items.js';
import { reviewItemsOf } from '../../src/runs/grade-run.js';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { allPass, ingestCatalog, publishAndWait, seedRun } from '../helpers/runs-test-helpers.js';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let token: string;
const HOUR = 3_600_000;
const now = Date.now();
const at = (hoursAgo: number) => new Date(now - hoursAgo * HOUR).toISOString();

// The seeded set; finish times step forward a..i so "newest first" is i..a.
const seeds = {
  a: runRecord({ id: 'run-a', model: 'm/one', runTimeSeconds: 100, tokens: { uncachedInput: 100 }, cost: 1, finishedAt: at(9) }),
  b: runRecord({ id: 'run-b', model: 'm/two', variant: 'fleet', harness: 'codex', runTimeSeconds: 300, tokens: { uncachedInput: 300 }, cost: 3, finishedAt: at(8) }),
  c: runRecord({ id: 'run-c', slug: 'crabber', version: 'v2.0.0', model: 'm/two', engine: 'simple-2d', runTimeSeconds: 200, tokens: { uncachedInput: 200 }, cost: 2, finishedAt: at(7) }),
  d: runRecord({ id: 'run-d', slug: 'crabber', version: 'v2.0.0', model: 'm/one', state: 'timed_out', runTimeSeconds: 50, finishedAt: at(6) }),
  e: runRecord({ id: 'run-e', variant: 'gusts', harness: 'gg', model: 'm/one', state: 'infrastructure', ggConfigId: 'saved:7', ggConfigName: 'Night crew', finishedAt: at(5) }),
  f: runRecord({ id: 'run-f', model: 'm/one', state: 'canceled', finishedAt: at(4) }),
  // run-g's case was never ingested here: it lists under its slug.
  g: runRecord({ id: 'run-g', slug: 'pennant', version: 'v1.0.0', testType: 'asset-generation', model: 'm/three', tokens: { uncachedInput: null }, cost: null, finishedAt: at(3) }),
  i: runRecord({ id: 'run-i', version: 'v1.0.0', model: 'm/two', finishedAt: at(2) }),
};
const unreadable = runRecord({ id: 'run-h', finishedAt: at(1) });
delete (unreadable.subject as Record<string, unknown>).modelId;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG });
  await ingestCatalog(backend, ['skiff-race', 'crabber']);
  ({ token } = await backend.auth.register('alice'));
  const crabber = (await backend.app.catalog.versions.get('crabber', 'v2.0.0'))!.stored.resolved;
  seeds.c = { ...seeds.c, validation: runRecord({ verdicts: allPass(reviewItemsOf(crabber, 'base').flatMap(verdictIdsOf)) }).validation };
  for (const record of Object.values(seeds)) await seedRun(backend, record, ['{"type":"started"}', 'not json', '{"type":"finished"}']);
  await seedRun(backend, unreadable);
  const review = (id: string, payload: object) =>
    backend.app.inject({ method: 'POST', url: `/runs/${id}/reviews`, headers: bearer(token), payload: { writeup: 'Played it.', ...payload } });
  expect((await review('run-a', { ratings: [{ domain: 'solo', rating: 'great' }, { domain: 'duel', rating: 'passable' }] })).statusCode).toBe(200);
  expect((await review('run-c', { aesthetic: 'good' })).statusCode).toBe(200);
  await publishAndWait(backend, token, 'run-a');
  await publishAndWait(backend, token, 'run-c');
});
afterAll(() => backend.close());

const ids = (body: { runs: { id: string }[] }) => body.runs.map((run) => run.id.replace('run-', '')).join('');
/** A numbered summary page (offset 0 unless the query names one). */
const summary = async (query: string) => {
  const response = await backend.app.inject(`/runs?fields=summary&${query}${query.includes('offset=') ? '' : '&offset=0'}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { runs: Record<string, unknown>[] & { id: string }[]; total: number };
};

describe('GET /runs state sets (numbered summary pages)', () => {
  it.each([
    ['published', 'ca'],
    ['review', 'igcba'],
    ['failures', 'd'],
    ['unreviewed', 'igb'],
    ['unpublished', 'igfedb'],
    ['publishable', 'd'],
    ['any', 'igfedcba'],
  ])('state=%s answers %s with its total', async (state, expected) => {
    const body = await summary(`state=${state}`);
    expect(ids(body)).toBe(expected);
    expect(body.total).toBe(expected.length);
  });

  it('defaults to published, ordered by publish time', async () => {
    expect(ids(await summary(''))).toBe('ca');
  });
});

describe('GET /runs offset filters', () => {
  it.each([
    ['model=m/one', 'feda'],
    ['harness=gg', 'e'],
    ['testCase=skiff-race&variant=fleet', 'b'],
    ['version=v2.0.0', 'dc'],
    ['engine=simple-2d', 'c'],
    ['engine=none', 'igfedba'],
    ['versions=v2.0.0,v1.0.0', 'igdc'],
    ['testCases=crabber,pennant', 'gdc'],
    ['testCases=crabber,pennant&testCase=crabber', 'dc'],
    ['ggConfigId=saved:7', 'e'],
    ['ggConfigId=saved:8', ''],
    ['aesthetic=good', 'c'],
    ['aesthetic=slop', ''],
    ['q=night', 'e'],
    ['q=PENN', 'g'],
    ['q=codex', 'b'],
    ['q=%25', ''],
    ['state=review&latestVersions=true', 'gcba'],
    ['state=review&latestVersions=true&versions=v1.0.0', 'ig'],
    ['state=review&latestVersions=true&version=v1.0.0', 'ig'],
    ['state=unpublished&latestVersions=true&testCase=skiff-race', 'feb'],
  ])('%s', async (query, expected) => {
    const body = await summary(query.startsWith('state=') ? query : `state=any&${query}`);
    expect(ids(body)).toBe(expected);
    expect(body.total).toBe(expected.length);
  });

  it('refuses an unknown engine slug with 400', async () => {
    const response = await backend.app.inject('/runs?fields=summary&state=any&offset=0&engine=unreal');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('engine');
  });
});

describe('GET /runs sorting and paging', () => {
  it.each([
    ['sort=runtime&dir=asc', 'dacbefgi'],
    ['sort=runtime&dir=desc', 'igfebcad'],
    ['sort=cost&dir=desc', 'bcifedag'],
    ['sort=cost&dir=asc', 'adeficbg'],
    ['sort=rating&dir=desc', 'caigfedb'],
    ['sort=testCase&dir=asc', 'cdabefig'],
    ['sort=model&dir=asc', 'adfgbcie'],
    ['sort=harness&dir=asc', 'acdfgibe'],
    ['sort=variant&dir=desc', 'ebigfdca'],
    ['sort=testType&dir=asc', 'gabcdefi'],
    ['sort=date&dir=asc', 'abcdefgi'],
  ])('%s breaks ties by run id', async (query, expected) => {
    // Equal keys fall back to the run id in the same direction; missing values (unrated, unknown cost) sort last.
    const body = await summary(`state=any&limit=200&${query}`);
    expect(ids(body)).toBe(expected);
  });

  it('pages by offset with a total under the same filters, and clamps limit to 200', async () => {
    const body = await summary('state=any&offset=3&limit=3');
    expect(ids(body)).toBe('edc');
    expect(body.total).toBe(8);
    expect((await backend.app.inject('/runs?fields=summary&state=any&offset=0&limit=1000')).statusCode).toBe(200);
  });

  it('walks a cursor to the end, ignoring filters, with full runs when fields is omitted', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    do {
      const url: string = `/runs?state=unpublished&limit=2&model=ignored${before ? `&before=${before}` : ''}`;
      const body = (await backend.app.inject(url)).json() as { runs: { id: string; record: { id: string } }[]; nextBefore: string | null };
      for (const run of body.runs) {
        expect(run.record.id).toBe(run.id);
        seen.push(run.id.replace('run-', ''));
      }
      before = body.nextBefore;
    } while (before);
    expect(seen.join('')).toBe('igfedb');
  });

  it('refuses offset without summary, any/publishable outside numbered pages, and a forged cursor', async () => {
    for (const url of ['/runs?offset=0', '/runs?state=any', '/runs?fields=summary&state=any', '/runs?fields=summary&state=publishable&before=x', '/runs?before=garbage']) {
      const response = await backend.app.inject(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code).toBe('bad_request');
    }
  });
});

describe('run detail, cards and events', () => {
  it('reports the same rating, aesthetic and score on the card and the detail', async () => {
    const cards = (await summary('state=any')).runs;
    for (const card of cards) {
      const detail = (await backend.app.inject(`/runs/${card.id}`)).json();
      expect({ rating: detail.rating, aesthetic: detail.aesthetic, score: detail.score, validatorRated: detail.validatorRated }).toEqual({
        rating: card.rating,
        aesthetic: card.aesthetic,
        score: card.score,
        validatorRated: card.validatorRated,
      });
    }
    const byId = Object.fromEntries(cards.map((card) => [card.id, card]));
    expect(byId['run-c']).toMatchObject({ rating: 'flawless', aesthetic: 'good', validatorRated: true, caseName: 'Crabber', reviewCount: 1, published: true });
    expect(byId['run-a']).toMatchObject({ caseName: 'Regatta' });
    expect(byId['run-c']!.score).toMatchObject({ reviews: 1 });
    expect(byId['run-a']).toMatchObject({ rating: 'passable', validatorRated: false, state: 'completed', subject: { testCaseSlug: 'skiff-race', modelId: 'm/one' } });
    expect(byId['run-d']).toMatchObject({ rating: null, score: null, state: 'timed-out' });
    // run-i's version was never ingested: no score, and the case name comes from the latest ingested manifest.
    expect(byId['run-i']).toMatchObject({ rating: null, score: null, caseName: 'Regatta' });
  });

  it('serves the recorded events as a bare array, dropping lines that were not JSON', async () => {
    const response = await backend.app.inject('/runs/run-b/events');
    expect(response.json()).toEqual([{ type: 'started' }, { type: 'finished' }]);
    expect((await backend.app.inject('/runs/nope/events')).statusCode).toBe(404);
  });

  it('answers 404 for an unknown run', async () => {
    expect((await backend.app.inject('/runs/nope')).json().error.code).toBe('not_found');
  });
});

describe('unreadable runs', () => {
  it('hides an unreadable run from listings and detail, lists it, counts it, and restores it on a readable re-push', async () => {
    expect(ids(await summary('state=any'))).not.toContain('h');
    expect((await backend.app.inject('/runs/run-h')).statusCode).toBe(404);
    const listed = (await backend.app.inject('/runs/unreadable')).json();
    expect(listed.total).toBe(1);
    expect(listed.runs[0]).toMatchObject({ id: 'run-h', testCaseSlug: 'skiff-race', harnessSlug: 'claude', modelId: '', published: false, reviewCount: 0 });
    expect(listed.runs[0].decodeError).toContain('modelId');
    expect((await backend.app.inject('/stats/cabinet')).json().runs).toBe(9);

    await seedRun(backend, { ...unreadable, subject: { ...(unreadable.subject as object), modelId: 'm/four' } });
    expect((await backend.app.inject('/runs/unreadable')).json().total).toBe(0);
    expect((await backend.app.inject('/runs/run-h')).json()).toMatchObject({ id: 'run-h', published: false });
    expect(ids(await summary('state=any&model=m/four'))).toBe('h');

    await seedRun(backend, { ...unreadable, recordFormat: 2 });
    expect((await backend.app.inject('/runs/unreadable')).json().runs[0].decodeError).toContain('format 2');
    const deleted = await backend.app.inject({ method: 'DELETE', url: '/runs/run-h', headers: bearer(token) });
    expect(deleted.json()).toEqual({ id: 'run-h', deleted: true });
    expect((await backend.app.inject('/runs/unreadable')).json().total).toBe(0);
  });
});

describe('GET /stats/cabinet', () => {
  it('folds every stored run into totals, unreported counts and 52 weekly buckets with zero weeks', async () => {
    const stats = (await backend.app.inject('/stats/cabinet')).json();
    expect(stats.runs).toBe(8);
    expect(stats.testCases).toBe(3);
    expect(stats.models).toBe(3);
    // run-g reported no tokens and no cost; every other seed reported both (cost 1.5 by default).
    expect(stats.tokens.unreportedRuns).toBe(1);
    expect(stats.cost.unreportedRuns).toBe(1);
    expect(stats.cost.total).toBeCloseTo(1 + 3 + 2 + 1.5 * 4, 6);
    expect(stats.weekly).toHaveLength(52);
    expect(stats.weekly.reduce((sum: number, week: { runs: number }) => sum + week.runs, 0)).toBe(8);
    expect(stats.weekly.filter((week: { runs: number }) => week.runs === 0).length).toBeGreaterThanOrEqual(50);
    for (const week of stats.weekly) expect(new Date(`${week.weekStart}T00:00:00Z`).getUTCDay()).toBe(1);
  });
});

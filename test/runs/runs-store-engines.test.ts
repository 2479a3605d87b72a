import { describe, expect, it } from 'vitest';
import type { ListState } from '../../src/contract/vocabulary.js';
import { writeTransaction, type BackendStore } from '../../src/db/dialect.js';
import { showcaseUploadsTable } from '../../src/db/showcase-uploads-table.js';
import { cabinetStats } from '../../src/runs/cabinet-stats.js';
import { decodeRunRecord } from '../../src/runs/decode-run-record.js';
import { runListing, type ListFilters } from '../../src/runs/list-runs.js';
import { priorReadmes } from '../../src/runs/prior-readmes.js';
import { publishJobs, STALE_PUBLISH_JOB } from '../../src/runs/publish-jobs.js';
import { runRows, type StoredReview } from '../../src/runs/run-rows.js';
import { unreadableRuns } from '../../src/runs/unreadable-runs.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { runRecord, type RunRecordOptions } from '../helpers/run-record-builder.js';
import { ggRunRecord, slice } from '../stats/gg-run-records.js';

const stores = engineStores();

/** Stores a run as a push does; `text` is the record as the driver sent it, byte for byte. */
async function put(store: BackendStore, record: Record<string, unknown>, options: { jobId?: string | null; text?: string; decodeError?: string } = {}) {
  const decoded = decodeRunRecord(record);
  return runRows(store).store({
    id: String(record.id),
    jobId: options.jobId ?? null,
    record: options.text ?? JSON.stringify(record),
    recordFormat: 1,
    decodeError: options.decodeError ?? null,
    events: '[]',
    lifted: decoded.lifted,
  });
}

const run = (store: BackendStore, options: RunRecordOptions) => put(store, runRecord(options));

const review = (reviewerId: string, reviewedAt: string, writeup = 'Solid.'): StoredReview => ({
  reviewerId, reviewer: reviewerId.toUpperCase(), username: reviewerId, ratings: [{ domain: 'play', rating: 'great' }], aesthetic: null,
  writeup, checklist: [{ id: 'boots', status: 'pass', note: 'ünïcödé ✓' }], reviewedAt, editedAt: null, revisions: [],
});

const T1 = '2025-03-03T10:00:00.000Z';
const T2 = '2025-03-04T10:00:00.000Z';
const T3 = '2025-03-05T10:00:00.000Z';

/**
 * Five readable completed runs and an unreadable one: ties on cost and finish time, a NULL
 * cost and a NULL finish time, names differing in case and holding LIKE's wildcards.
 */
async function seedListing(store: BackendStore) {
  await run(store, { id: 'run-1', cost: 3, finishedAt: T1, model: 'Vendor/Alpha', harness: 'claude' });
  await run(store, { id: 'run-2', cost: null, finishedAt: T1, model: 'vendor/beta', harness: 'claude' });
  await run(store, { id: 'run-3', cost: 1, finishedAt: T2, model: 'vendor/gamma_x', harness: 'codex' });
  await run(store, { id: 'run-4', cost: 3, finishedAt: T3, model: 'vendor/delta', harness: 'codex' });
  await run(store, { id: 'run-5', cost: 2, finishedAt: T2, model: 'vendor/%pct', harness: 'goose' });
  await store.db.updateTable('runs').set({ finished_at: null }).where('id', '=', 'run-5').execute();
  await put(store, runRecord({ id: 'run-unreadable', finishedAt: T3 }), { decodeError: 'format 9 is newer than this build' });
}

describe.each(ENGINES)('the runs store on %s', (engine) => {
  it('keeps records and events byte for byte: unicode, escapes, big numbers, key order, whitespace', async () => {
    const store = await stores.fresh(engine);
    const record = runRecord({ id: 'run-ünï-✓' });
    const text = `{ "z": 1, "id": "run-ünï-✓", "big": 9007199254740993, "tiny": 5e-324, "precise": 0.30000000000000004, "nul": "\\u0000",
      "emoji": "😀\\ud83d\\ude00", "quote": "\\"",\r\n "subject": ${JSON.stringify(record.subject)}, "finishedAt": "${String(record.finishedAt)}" }`;
    expect(await put(store, record, { text })).toBe(true);
    const rows = runRows(store);
    expect((await rows.get('run-ünï-✓'))!.record).toBe(text);
    await store.db.updateTable('runs').set({ events: '[{"b":1,"a":2.50}]' }).where('id', '=', 'run-ünï-✓').execute();
    expect(await rows.events('run-ünï-✓')).toBe('[{"b":1,"a":2.50}]');
    expect(await rows.get('no-such-run')).toBeNull();
  });

  it('lets only the storing job re-push a run, keeps released links, and answers owners', async () => {
    const store = await stores.fresh(engine);
    const rows = runRows(store);
    const first = runRecord({ id: 'owned', links: { sourceRepo: 'https://git.example/first' } });
    expect(await put(store, first, { jobId: 'job-a' })).toBe(true);
    await rows.markPublished({ id: 'owned', publishedAt: T2, sourceRepo: null, playableBuild: 'https://play.example/owned' });
    const again = runRecord({ id: 'owned', cost: 9, links: { sourceRepo: 'https://git.example/second', playableBuild: null } });
    expect(await put(store, again, { jobId: 'job-b' })).toBe(false);
    expect(await put(store, again, { jobId: 'job-a' })).toBe(true);
    expect(await rows.get('owned')).toMatchObject({
      published: 1, published_at: T2, link_source_repo: 'https://git.example/first', link_playable_build: 'https://play.example/owned', grade_key: null,
    });
    expect(await rows.owner('owned')).toEqual({ jobId: 'job-a' });

    // A job's showcase uploads claim a run id before the run is stored.
    const uploads = showcaseUploadsTable(store);
    await uploads.bind('job-c', 'uploaded');
    expect(await rows.owner('uploaded')).toEqual({ jobId: 'job-c' });
    expect(await put(store, runRecord({ id: 'uploaded' }), { jobId: 'job-d' })).toBe(false);
    expect(await put(store, runRecord({ id: 'uploaded' }), { jobId: 'job-c' })).toBe(true);
    expect(await rows.owner('never')).toBeUndefined();

    expect(await rows.remove('owned')).toBe(true);
    expect(await rows.remove('owned')).toBe(false);
  });

  it('pages the listing alike: each sort with NULLs placed and ties broken by id, byte order, totals', async () => {
    const store = await stores.fresh(engine);
    await seedListing(store);
    const listing = runListing(store);
    const ids = async (filters: ListFilters, offset = 0, limit = 10) => {
      const page = await listing.offset('review', filters, offset, limit);
      return { ids: page.rows.map((row) => row.id), total: page.total };
    };
    expect(await ids({})).toEqual({ ids: ['run-4', 'run-3', 'run-2', 'run-1', 'run-5'], total: 5 });
    expect(await ids({ dir: 'asc' })).toEqual({ ids: ['run-5', 'run-1', 'run-2', 'run-3', 'run-4'], total: 5 });
    expect(await ids({}, 2, 2)).toEqual({ ids: ['run-2', 'run-1'], total: 5 });
    expect((await ids({ sort: 'cost' })).ids).toEqual(['run-4', 'run-1', 'run-5', 'run-3', 'run-2']);
    expect((await ids({ sort: 'cost', dir: 'asc' })).ids).toEqual(['run-3', 'run-5', 'run-1', 'run-4', 'run-2']);
    // Byte order: an upper-case letter and '%' sort before lower-case letters.
    expect((await ids({ sort: 'model', dir: 'asc' })).ids).toEqual(['run-1', 'run-5', 'run-2', 'run-4', 'run-3']);
    expect((await ids({ sort: 'harness', dir: 'asc' })).ids).toEqual(['run-1', 'run-2', 'run-3', 'run-4', 'run-5']);
    for (const sort of ['runtime', 'tokens', 'rating', 'testType', 'testCase', 'variant'] as const) {
      // Every run ties (or is NULL) on these: the id decides, in the sort's direction.
      expect((await ids({ sort, dir: 'desc' })).ids, sort).toEqual(['run-5', 'run-4', 'run-3', 'run-2', 'run-1']);
    }
    expect(await ids({ harness: 'codex' })).toEqual({ ids: ['run-4', 'run-3'], total: 2 });
    expect((await ids({ versions: ['v1.1.0', 'v9'] })).total).toBe(5);
    expect(await ids({ versions: [] })).toEqual({ ids: [], total: 0 });
    expect((await ids({ testCases: ['skiff-race'], latestVersions: true })).total).toBe(5);
  });

  it("selects each state's runs and a case's latest version alike", async () => {
    const store = await stores.fresh(engine);
    await run(store, { id: 'reviewed', state: 'completed' });
    await run(store, { id: 'failed', state: 'hung' });
    await run(store, { id: 'unreviewed', state: 'completed' });
    await run(store, { id: 'auto-graded', state: 'completed', testType: 'performance' });
    await run(store, { id: 'released', state: 'hung' });
    await store.db.updateTable('runs').set({ review_count: 1 }).where('id', '=', 'reviewed').execute();
    await runRows(store).markPublished({ id: 'released', publishedAt: T2, sourceRepo: null, playableBuild: null });
    const listing = runListing(store);
    const inState = async (state: ListState) => (await listing.offset(state, {}, 0, 10)).rows.map((row) => row.id).sort();
    expect(await inState('published')).toEqual(['released']);
    expect(await inState('review')).toEqual(['auto-graded', 'reviewed', 'unreviewed']);
    expect(await inState('failures')).toEqual(['failed', 'released']);
    expect(await inState('unreviewed')).toEqual(['unreviewed']);
    expect(await inState('unpublished')).toEqual(['auto-graded', 'failed', 'reviewed', 'unreviewed']);
    expect(await inState('publishable')).toEqual(['failed', 'reviewed']);
    expect(await inState('any')).toHaveLength(5);

    await run(store, { id: 'old-version', slug: 'race', version: 'v1.9.0' });
    await run(store, { id: 'new-version', slug: 'race', version: 'v1.10.0' });
    const latest = await listing.offset('review', { testCases: ['race'], latestVersions: true }, 0, 10);
    expect(latest).toMatchObject({ rows: [{ id: 'new-version' }], total: 1 });
  });

  it('searches case-insensitively, with LIKE wildcards taken literally', async () => {
    const store = await stores.fresh(engine);
    await seedListing(store);
    const listing = runListing(store);
    const search = async (q: string) => (await listing.offset('review', { q }, 0, 10)).rows.map((row) => row.id);
    expect(await search('ALPHA')).toEqual(['run-1']);
    expect(await search('VENDOR/')).toEqual(['run-4', 'run-3', 'run-2', 'run-1', 'run-5']);
    expect(await search('%')).toEqual(['run-5']);
    expect(await search('a_x')).toEqual(['run-3']);
    expect(await search('_')).toEqual(['run-3']);
    expect(await search('Codex')).toEqual(['run-4', 'run-3']);
  });

  it('pages by cursor newest first, through a tie on the finish time', async () => {
    const store = await stores.fresh(engine);
    await seedListing(store);
    const listing = runListing(store);
    const first = await listing.cursor('review', undefined, 2);
    expect(first.rows.map((row) => row.id)).toEqual(['run-4', 'run-3']);
    const second = await listing.cursor('review', first.nextBefore!, 2);
    expect(second.rows.map((row) => row.id)).toEqual(['run-2', 'run-1']);
    expect((await listing.cursor('failures', undefined, 2)).rows).toEqual([]);
  });

  it('lists unreadable runs with their review counts', async () => {
    const store = await stores.fresh(engine);
    await seedListing(store);
    await runRows(store).putReview('run-unreadable', review('acct-1', T1));
    const page = await unreadableRuns(store)(0, 10);
    expect(page.total).toBe(1);
    expect(page.runs).toEqual([expect.objectContaining({ id: 'run-unreadable', reviewCount: 1, published: false, decodeError: 'format 9 is newer than this build' })]);
  });

  it('writes reviews as upserts, reads them in order, and sets grades in one transaction', async () => {
    const store = await stores.fresh(engine);
    await run(store, { id: 'reviewed' });
    const rows = runRows(store);
    await rows.putReview('reviewed', review('zed', T1));
    await rows.putReview('reviewed', review('amy', T1));
    await rows.putReview('reviewed', review('bob', T2));
    await rows.putReview('reviewed', { ...review('zed', T3, 'Edited.'), editedAt: T3 });
    const reviews = await rows.reviews('reviewed');
    expect(reviews.map((entry) => [entry.reviewerId, entry.reviewedAt, entry.writeup])).toEqual([
      ['amy', T1, 'Solid.'], ['zed', T1, 'Edited.'], ['bob', T2, 'Solid.'],
    ]);
    expect(reviews[0]).toEqual(review('amy', T1));

    const grade = { id: 'reviewed', reviewCount: 3, aesthetic: null, aestheticRank: null, ratingRank: 4, validatorRated: 0, grade: '{"rating":"great"}',
      gradeKey: 'k|k', caseName: 'Skiff Race', validatorRatingRank: null, reviewRatingRanks: [{ reviewerId: 'amy', rank: 4 }, { reviewerId: 'bob', rank: null }] };
    await writeTransaction(store, (trx) => rows.within(trx).setGrade(grade));
    expect(await rows.get('reviewed')).toMatchObject({ review_count: 3, grade: '{"rating":"great"}', grade_key: 'k|k', case_name: 'Skiff Race', validator_rated: 0 });
    const ranks = await store.db.selectFrom('run_reviews').select(['reviewer_id', 'rating_rank']).orderBy('reviewer_id').execute();
    expect(ranks).toEqual([{ reviewer_id: 'amy', rating_rank: 4 }, { reviewer_id: 'bob', rating_rank: null }, { reviewer_id: 'zed', rating_rank: null }]);

    // A transaction that fails midway leaves nothing of it.
    await expect(writeTransaction(store, async (trx) => {
      await rows.within(trx).setGrade({ ...grade, reviewCount: 9, reviewRatingRanks: [] });
      throw new Error('midway');
    })).rejects.toThrow('midway');
    expect((await rows.get('reviewed'))!.review_count).toBe(3);
  });

  it('moves publish jobs through their states, one live job per run', async () => {
    const store = await stores.fresh(engine);
    await run(store, { id: 'to-publish', state: 'hung' });
    const jobs = publishJobs(store);
    const now = Date.now();
    const stale = await jobs.claim('to-publish', now - STALE_PUBLISH_JOB - 1);
    expect(stale).toMatchObject({ created: true, job: { runId: 'to-publish', state: 'live', detail: null } });
    const fresh = await jobs.claim('to-publish', now);
    expect(fresh.created).toBe(true);
    expect(await jobs.get(stale.job.id)).toMatchObject({ state: 'failed', detail: expect.stringContaining('within an hour') });
    expect(await jobs.claim('to-publish', now + 1)).toEqual({ created: false, job: fresh.job });
    expect((await jobs.live()).map((job) => job.id)).toEqual([fresh.job.id]);

    expect(await jobs.markFinished(fresh.job.id, 'succeeded', { sourceRepo: 'https://git.example/p' })).toBe(true);
    expect(await jobs.markFinished(fresh.job.id, 'failed', { detail: 'late' })).toBe(false);
    const done = (await jobs.get(fresh.job.id))!;
    expect(jobs.resultOf(done)).toEqual({ type: 'result', state: 'succeeded', sourceRepo: 'https://git.example/p' });
    expect(await jobs.latestSucceeded('to-publish')).toEqual(done);
    expect(await jobs.live()).toEqual([]);
    expect((await jobs.claim('to-publish', now + 2)).created).toBe(true);
  });

  it('binds showcase uploads to one run per job and charges them within bounds', async () => {
    const store = await stores.fresh(engine);
    const uploads = showcaseUploadsTable(store);
    const bounds = { files: 2, bytes: 100 };
    expect(await uploads.bind('job-1', 'run-a')).toEqual({ runId: 'run-a', files: 0, bytes: 0 });
    expect(await uploads.bind('job-2', 'run-a')).toEqual({ otherJob: 'job-1' });
    expect(await uploads.charge('job-1', 60, bounds)).toBe(true);
    expect(await uploads.bind('job-1', 'run-b')).toEqual({ runId: 'run-a', files: 1, bytes: 60 });
    expect(await uploads.charge('job-1', 41, bounds)).toBe(false);
    expect(await uploads.charge('job-1', 40, bounds)).toBe(true);
    expect(await uploads.charge('job-1', 0, bounds)).toBe(false);
    expect(await uploads.bind('job-1', 'run-a')).toEqual({ runId: 'run-a', files: 2, bytes: 100 });
  });

  it('counts the cabinet statistics: sums, unreported runs and Monday weeks', async () => {
    const store = await stores.fresh(engine);
    await run(store, { id: 'sunday', finishedAt: '2025-03-09T23:59:59.000Z', cost: 0.1, tokens: { uncachedInput: 10, output: 5 } });
    await run(store, { id: 'monday', finishedAt: '2025-03-10T00:00:00.000Z', cost: 0.2, tokens: { uncachedInput: 1, output: null } });
    await run(store, { id: 'unpriced', finishedAt: '2025-03-12T09:00:00.000Z', cost: null, model: 'vendor/other', slug: 'other-case' });
    const stats = await cabinetStats(store)(Date.parse('2025-03-12T10:00:00Z'));
    expect(stats).toMatchObject({ runs: 3, cost: { total: 0.3, unreportedRuns: 1 }, testCases: 2, models: 2 });
    expect(stats.tokens.total).toBe((await store.db.selectFrom('runs').select('tokens_total').execute()).reduce((sum, row) => sum + (row.tokens_total ?? 0), 0));
    expect(stats.weekly.slice(-2)).toEqual([{ weekStart: '2025-03-03', runs: 1 }, { weekStart: '2025-03-10', runs: 2 }]);
    expect(stats.weekly).toHaveLength(52);
  });

  it("reads earlier runs' game jam READMEs from the stored records, oldest first", async () => {
    const store = await stores.fresh(engine);
    const withReadme = (id: string, finishedAt: string, readme: unknown) => ({ ...runRecord({ id, finishedAt, slug: 'jam', model: 'vendor/m' }), gameJamReadme: readme });
    await put(store, withReadme('late', T3, 'Later ✓'));
    await put(store, withReadme('early', T1, '# First\n"quoted" ünï'));
    await put(store, withReadme('empty', T2, ''));
    await put(store, { ...runRecord({ id: 'other-model', slug: 'jam', model: 'vendor/n' }), gameJamReadme: 'not this' });
    const readmes = await priorReadmes(store)('jam', 'vendor/m');
    expect(readmes.map((entry) => [entry.runId, entry.readme])).toEqual([['early', '# First\n"quoted" ünï'], ['late', 'Later ✓']]);
  });

  it("lifts a gg run's provider slices with the run, replacing them on a re-push", async () => {
    const store = await stores.fresh(engine);
    const summary = (calls: number) => ({
      executionMode: 'tool_calling', toolCalls: 3,
      providerStats: [slice('Together', 'vendor/gg', { calls, errors: { rate_limit: 2, model_timeout: 1 } }), slice('Together', 'vendor/gg'), slice(null, null)],
    });
    await put(store, ggRunRecord({ id: 'gg-run', model: 'vendor/gg', summary: summary(10) }), { jobId: 'job-gg' });
    await put(store, ggRunRecord({ id: 'gg-run', model: 'vendor/gg', summary: summary(20) }), { jobId: 'job-gg' });
    const slices = await store.db.selectFrom('run_provider_slices').select(['provider', 'model_id', 'calls', 'model_faults', 'first_of_pair', 'first_of_provider'])
      .orderBy('calls', 'desc').orderBy('provider', (ob) => ob.asc().nullsFirst()).execute();
    expect(slices).toEqual([
      { provider: 'Together', model_id: 'vendor/gg', calls: 20, model_faults: 1, first_of_pair: 1, first_of_provider: 1 },
      { provider: null, model_id: 'vendor/gg', calls: 10, model_faults: 0, first_of_pair: 1, first_of_provider: 1 },
      { provider: 'Together', model_id: 'vendor/gg', calls: 10, model_faults: 0, first_of_pair: 0, first_of_provider: 0 },
    ]);
    const errors = await store.db.selectFrom('run_provider_slice_errors').select(['error_type', 'n']).orderBy('error_type').execute();
    expect(errors).toEqual([{ error_type: 'model_timeout', n: 1 }, { error_type: 'rate_limit', n: 2 }]);
    expect(await store.db.selectFrom('run_gg_stats').select(['run_id', 'tool_calls', 'has_provider_data']).execute()).toEqual([{ run_id: 'gg-run', tool_calls: 3, has_provider_data: 1 }]);
  });
});

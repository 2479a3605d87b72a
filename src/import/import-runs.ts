import type { BackendStore } from '../db/dialect.js';
import { writeTransaction } from '../db/dialect.js';
import { modelCatalogStore } from '../models/model-catalog-store.js';
import type { ListPrice } from '../runs/decode-run-record.js';
import { runRows, type StoredReview } from '../runs/run-rows.js';
import type { SourceShape } from './detect-generation.js';
import type { TableLedger } from './ledger.js';
import { mapReview, reviewDigestValues, REVIEW_DIGEST_COLUMNS, REVIEW_VERBATIM_COLUMNS } from './map-reviews.js';
import { mapRun, runDigestValues, RUN_DIGEST_COLUMNS, RUN_VERBATIM_COLUMNS, type MappedRun } from './map-runs.js';
import { placeholders, text } from './source-values.js';
import type { SourceDb, SourceRow } from './source-db.js';

export interface RunImportDeps {
  source: SourceDb;
  shape: SourceShape;
  store: BackendStore;
  dryRun: boolean;
  batchRows: number;
  ledger(table: string): TableLedger;
  /** Runs the published-but-unreadable list names. */
  publishedUnreadable: string[];
  signal?: AbortSignal;
  /** After each page's commit: rows read and written so far. */
  onPage?: (read: number, written: number) => void;
}

/** A NUL byte: PostgreSQL's text cannot hold one, and a row is never altered to fit. */
const NUL = '\u0000';

/**
 * Imports `run` page by page with each page's `run_link`, `review` and `review_revision` rows:
 * every page is one transaction of our own write paths (`storeRun`, `markPublished`,
 * `putReview`), so a killed import leaves whole pages only. Each row is compared with what
 * the store already holds under its id first: an equal row is counted and not written again
 * (a rerun writes nothing), a different one is a conflict, refused and never overwritten.
 * After each commit the page is read back from the store into the target digests.
 */
export async function importRuns(deps: RunImportDeps): Promise<void> {
  const { source, shape, store } = deps;
  const runs = deps.ledger('run').digests(RUN_DIGEST_COLUMNS, RUN_VERBATIM_COLUMNS);
  const links = shape.has('run_link') ? deps.ledger('run_link') : null;
  const reviews = shape.has('review') ? deps.ledger('review').digests(REVIEW_DIGEST_COLUMNS, REVIEW_VERBATIM_COLUMNS) : null;
  const revisions = shape.has('review_revision') ? deps.ledger('review_revision') : null;
  const prices = listPrices(store);
  const rows = runRows(store);
  const nulRefused = store.engine === 'postgres';

  for await (const page of source.pages('run', ['id'], deps.batchRows)) {
    deps.signal?.throwIfAborted();
    const ids = page.map((row) => text(row.id)!);
    const linkRows = links ? await byKey(source, 'run_link', 'run_id', ids) : new Map<string, SourceRow[]>();
    const jobOf = await jobsOfRecords(source, shape, ids);
    const reviewRows = reviews ? await byKey(source, 'review', 'run_id', ids) : new Map<string, SourceRow[]>();
    const revisionRows = revisions && shape.has('review', 'id')
      ? await byKey(source, 'review_revision', 'review_id', [...reviewRows.values()].flat().map((r) => text(r.id)!))
      : new Map<string, SourceRow[]>();

    const refusedRuns = new Map<string, string>();
    const mapped: MappedRun[] = [];
    for (const row of page) {
      runs.read += 1;
      const m = mapRun(row, linkRows.get(text(row.id)!)?.[0], jobOf.get(text(row.id)!) ?? null, await prices(text(row.model_id) ?? ''), shape.has('run', 'published'));
      runs.notes.push(...m.notes);
      if (nulRefused && (m.stored.record.includes(NUL) || m.stored.events.includes(NUL))) {
        runs.refuse('holds a NUL byte, which PostgreSQL text cannot store', m.stored.id);
        refusedRuns.set(m.stored.id, 'its run was refused');
        continue;
      }
      mapped.push(m);
    }
    const existing = await existingRuns(store, mapped.map((m) => m.stored.id));
    const existingReviews = await existingReviewsOf(store, mapped.map((m) => m.stored.id));

    const accepted: MappedRun[] = [];
    const reviewsToCount: Array<{ runId: string; review: StoredReview; raw: SourceRow }> = [];
    for (const m of mapped) {
      const { id } = m.stored;
      const held = existing.get(id);
      const runReviews = reviewRows.get(id) ?? [];
      if (held && !sameRun(held, m)) {
        runs.refuse('conflict: the store already holds a different run under this id (never overwritten)', id);
        refusedRuns.set(id, 'its run was refused (a conflict)');
        continue;
      }
      accepted.push(m);
      for (const raw of runReviews) {
        reviews!.read += 1;
        const own = revisionRows.get(text(raw.id) ?? '') ?? [];
        if (revisions) revisions.read += own.length;
        const review = mapReview(raw, own, reviews!.notes);
        const heldReview = existingReviews.get(`${id}\n${review.reviewerId}`);
        if (heldReview !== undefined && heldReview !== JSON.stringify(reviewDigestValues(id, review).concat([review.writeup, JSON.stringify(review.checklist)]))) {
          reviews!.refuse('conflict: the store already holds a different review by this reviewer of this run (never overwritten)', reviewKey(raw));
          for (const revision of own) revisions!.refuse('its review was refused (a conflict)', text(revision.id) ?? reviewKey(raw));
          continue;
        }
        reviewsToCount.push({ runId: id, review, raw });
      }
    }

    if (!deps.dryRun) {
      await writeTransaction(store, async (trx) => {
        const within = rows.within(trx);
        for (const m of accepted) {
          if (existing.has(m.stored.id)) continue;
          if (!(await within.storeRun(m.stored))) throw new Error(`run ${m.stored.id}: another job's showcase uploads hold this id`);
          if (m.published) await within.markPublished({ id: m.stored.id, publishedAt: m.publishedAt!, sourceRepo: m.sourceRepo, playableBuild: m.playableBuild });
          else if (m.sourceRepo !== m.stored.lifted.sourceRepo || m.playableBuild !== m.stored.lifted.playableBuild) {
            // An unpublished run with release links of its own (rare): kept as the original shows them.
            await trx.updateTable('runs').set({ link_source_repo: m.sourceRepo, link_playable_build: m.playableBuild }).where('id', '=', m.stored.id).execute();
          }
          runs.written += 1;
        }
        for (const { runId, review } of reviewsToCount) {
          if (existingReviews.has(`${runId}\n${review.reviewerId}`)) continue;
          await within.putReview(runId, review);
          reviews!.written += 1;
        }
      });
    }

    for (const m of accepted) {
      if (m.stored.decodeError === null) runs.imported += 1;
      else {
        runs.unreadable += 1;
        if (m.published) deps.publishedUnreadable.push(m.stored.id);
      }
      runs.mapped!.source.add(runDigestValues(m));
      runs.verbatim!.source.add([m.stored.id, m.stored.record, m.stored.events]);
    }
    // The rows that hang off a refused run are refused with it, and say so.
    for (const [id, reason] of refusedRuns) {
      for (const raw of reviewRows.get(id) ?? []) {
        reviews!.read += 1;
        reviews!.refuse(reason, reviewKey(raw));
        const own = revisionRows.get(text(raw.id) ?? '') ?? [];
        for (const revision of own) {
          revisions!.read += 1;
          revisions!.refuse(reason, text(revision.id) ?? reviewKey(raw));
        }
      }
    }
    for (const [id, found] of linkRows) {
      links!.read += found.length;
      if (refusedRuns.has(id)) found.forEach(() => links!.refuse(refusedRuns.get(id)!, id));
      else links!.imported += found.length;
    }
    for (const { runId, review, raw } of reviewsToCount) {
      reviews!.imported += 1;
      if (revisions) revisions.imported += review.revisions.length;
      reviews!.mapped!.source.add(reviewDigestValues(runId, review));
      reviews!.verbatim!.source.add([runId, review.reviewerId, text(raw.writeup) ?? '', text(raw.checklist) ?? '[]']);
    }
    deps.onPage?.(runs.read, runs.written);
    if (deps.dryRun) continue;
    // Read back after the commit: what the store now holds for this page.
    const after = await existingRuns(store, accepted.map((m) => m.stored.id));
    for (const m of accepted) {
      const held = after.get(m.stored.id);
      if (!held) continue;
      runs.mapped!.target.add(RUN_DIGEST_COLUMNS.map((column) => held[column]));
      runs.verbatim!.target.add(RUN_VERBATIM_COLUMNS.map((column) => held[column]));
    }
    const heldReviews = await store.db.selectFrom('run_reviews').selectAll().where('run_id', 'in', accepted.length ? accepted.map((m) => m.stored.id) : ['']).execute();
    const wanted = new Set(reviewsToCount.map(({ runId, review }) => `${runId}\n${review.reviewerId}`));
    for (const held of heldReviews) {
      if (!wanted.has(`${held.run_id}\n${held.reviewer_id}`)) continue;
      reviews!.mapped!.target.add(REVIEW_DIGEST_COLUMNS.map((column) => held[column]));
      reviews!.verbatim!.target.add(REVIEW_VERBATIM_COLUMNS.map((column) => held[column]));
    }
  }
}

const reviewKey = (row: SourceRow) => text(row.id) ?? `${text(row.run_id)}/${text(row.reviewer_user_id) ?? 'unattributed'}`;

/** Source rows of `table` whose `column` is one of `keys`, by that column. */
async function byKey(source: SourceDb, table: string, column: string, keys: string[]): Promise<Map<string, SourceRow[]>> {
  const found = new Map<string, SourceRow[]>();
  if (keys.length === 0) return found;
  for (const row of await source.all(`SELECT * FROM "${table}" WHERE "${column}" IN ${placeholders(keys.length)}`, keys)) {
    const key = text(row[column])!;
    found.set(key, [...(found.get(key) ?? []), row]);
  }
  return found;
}

/** The job that produced each run (its `record_id`): of several, the latest `updated_at`. */
async function jobsOfRecords(source: SourceDb, shape: SourceShape, ids: string[]): Promise<Map<string, string>> {
  const jobs = new Map<string, string>();
  if (!shape.has('job', 'record_id')) return jobs;
  const rows = [...(await byKey(source, 'job', 'record_id', ids)).entries()];
  for (const [runId, candidates] of rows) {
    const latest = candidates.sort((a, b) => String(b.updated_at).localeCompare(String(a.updated_at)))[0]!;
    jobs.set(runId, text(latest.id)!);
  }
  return jobs;
}

type HeldRun = Record<(typeof RUN_DIGEST_COLUMNS)[number] | 'record' | 'events', unknown>;

async function existingRuns(store: BackendStore, ids: string[]): Promise<Map<string, HeldRun>> {
  if (ids.length === 0) return new Map();
  const rows = await store.db.selectFrom('runs').select([...RUN_DIGEST_COLUMNS, 'record', 'events']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row as HeldRun]));
}

/** Each held review's mapped values as one text, by `run id \n reviewer id`. */
async function existingReviewsOf(store: BackendStore, runIds: string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const rows = await store.db.selectFrom('run_reviews').selectAll().where('run_id', 'in', runIds).execute();
  return new Map(rows.map((row) => [`${row.run_id}\n${row.reviewer_id}`, JSON.stringify([...REVIEW_DIGEST_COLUMNS.map((c) => row[c]), row.writeup, row.checklist])]));
}

/** The held run is this import's: same record, events, job and publication. */
function sameRun(held: HeldRun, mapped: MappedRun): boolean {
  const values = runDigestValues(mapped);
  return held.record === mapped.stored.record && held.events === mapped.stored.events
    && RUN_DIGEST_COLUMNS.every((column, i) => String(held[column] ?? '') === String(values[i] ?? ''));
}

/** List prices by model id from our catalog, read once per model: a record without a cost is priced by them. */
function listPrices(store: BackendStore): (modelId: string) => Promise<ListPrice | null> {
  const catalog = modelCatalogStore(store);
  const known = new Map<string, ListPrice | null>();
  return async (modelId) => {
    if (!known.has(modelId)) known.set(modelId, (await catalog.get(modelId))?.listPrice ?? null);
    return known.get(modelId)!;
  };
}

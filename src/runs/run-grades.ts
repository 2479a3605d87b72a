import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { CatalogIndex, IndexedVersion } from '../catalog/catalog-index.js';
import { compareVersions } from '../catalog/compare-versions.js';
import type { ResolvedVersion } from '../catalog/resolved-version.js';
import type { StoredVersions } from '../catalog/stored-versions.js';
import { writeTransaction, type BackendStore } from '../db/dialect.js';
import { gateRatings, gradeRun, type Grade } from './grade-run.js';
import type { ListedRow, RunRows } from './run-rows.js';
import { aestheticRank, ratingRank, type Aesthetic, type Rating } from './run-states.js';

/** Stale runs regraded between turns of the event loop. */
const REGRADES_PER_TURN = 64;

export interface RunGradesDeps {
  store: BackendStore;
  rows: RunRows;
  index: CatalogIndex;
  versions: StoredVersions;
}

/**
 * Keeps each run's derived columns (grade, review count, aesthetic, rating rank, case name)
 * in step with its reviews and the ingested catalog. A run remembers which ingest it was
 * graded against (`grade_key`); a read that finds another key regrades before answering,
 * so a re-ingest never leaves a stale rating on a card or a detail.
 */
export function runGrades({ store, rows, index, versions }: RunGradesDeps) {
  /** The run's own version among its case's indexed versions, and the case's newest by `compareVersions` (the first by version text among equals). */
  const placeIn = (versions: IndexedVersion[], version: string) => ({
    own: versions.find((v) => v.version === version) ?? null,
    latest: versions.reduce<IndexedVersion | null>((best, v) => (best && compareVersions(best.version, v.version) >= 0 ? best : v), null),
  });
  /** `<own ingest>|<latest version's ingest>`: the grade reads the first, the case name the second. */
  const keyOf = ({ own, latest }: ReturnType<typeof placeIn>) => `${own?.ingestedAt ?? ''}|${latest?.ingestedAt ?? ''}`;

  /** Each run's grade key, from one catalog read however many cases a page holds. */
  async function gradeKeys(runs: ReadonlyArray<{ slug: string; version: string }>): Promise<string[]> {
    const bySlug = new Map<string, IndexedVersion[]>();
    for (const version of await index.versionsOfEach([...new Set(runs.map((run) => run.slug))])) {
      const versions = bySlug.get(version.slug);
      if (versions) versions.push(version);
      else bySlug.set(version.slug, [version]);
    }
    return runs.map(({ slug, version }) => keyOf(placeIn(bySlug.get(slug) ?? [], version)));
  }

  /** A version's resolved definition; null when it was never ingested or its stored copy is unreadable (graded alike). */
  async function resolved(own: IndexedVersion | null): Promise<ResolvedVersion | null> {
    try {
      return own ? (await versions.load(own)).stored.resolved : null;
    } catch {
      return null;
    }
  }

  async function caseName(slug: string, latest: IndexedVersion | null): Promise<string> {
    if (!latest) return slug;
    try {
      return (await versions.load(latest)).stored.resolved.name || slug;
    } catch {
      return slug;
    }
  }

  /**
   * The catalog reads come first (one index read for the key, the grade and the case name);
   * the run (locked) and its reviews are then read and the grade written in one write
   * transaction, so a review (or re-push) stored meanwhile, by this process or another, is
   * never overwritten by a grade computed without it.
   */
  async function regrade(row: ListedRow): Promise<Grade | null> {
    const place = placeIn(await index.versionsOf(row.test_case_slug), row.test_case_version);
    const outcome = await writeGrade(row, await resolved(place.own), await caseName(row.test_case_slug, place.latest), keyOf(place));
    if (outcome !== 'moved') return outcome;
    const moved = await rows.listed(row.id);
    return moved ? regrade(moved) : null;
  }

  const writeGrade = (seen: ListedRow, version: ResolvedVersion | null, name: string, key: string): Promise<Grade | null | 'moved'> =>
    writeTransaction(store, async (trx) => {
      const within = rows.within(trx);
      const row = await within.getLocked(seen.id);
      if (!row || row.decode_error !== null) return null;
      // A re-push that changed the run's case version needs that version's catalog reads.
      if (row.test_case_slug !== seen.test_case_slug || row.test_case_version !== seen.test_case_version) return 'moved';
      const reviews = await within.reviews(row.id);
      const input = { state: row.state, testType: row.test_type, variant: row.variant, validatorVerdicts: JSON.parse(row.validator_verdicts), reviews };
      const grade = gradeRun(input, version);
      const gate = gateRatings(input, version);
      await within.setGrade({
        id: row.id,
        reviewCount: reviews.length,
        aesthetic: grade.aesthetic,
        aestheticRank: grade.aesthetic ? aestheticRank(grade.aesthetic as Aesthetic) : null,
        ratingRank: grade.rating ? ratingRank(grade.rating as Rating) : null,
        validatorRated: grade.validatorRated ? 1 : 0,
        grade: JSON.stringify(grade),
        gradeKey: key,
        caseName: name,
        validatorRatingRank: gate.validators ? ratingRank(gate.validators) : null,
        reviewRatingRanks: reviews.map((review, i) => ({ reviewerId: review.reviewerId, rank: gate.reviews[i] ? ratingRank(gate.reviews[i]!) : null })),
      });
      return grade;
    });

  const staleCandidates = () =>
    store.db
      .selectFrom('runs')
      .select(['test_case_slug as slug', 'test_case_version as version', 'grade_key as key'])
      .distinct()
      .where('decode_error', 'is', null)
      .execute();
  const runsOfVersion = (slug: string, version: string) =>
    store.db.selectFrom('runs').select('id').where('decode_error', 'is', null).where('test_case_slug', '=', slug).where('test_case_version', '=', version).execute();

  return {
    regrade,
    /** Regrades one run by id (after a store or a review); false when it is unknown or unreadable. */
    async regradeById(id: string): Promise<boolean> {
      const row = await rows.listed(id);
      if (!row || row.decode_error !== null) return false;
      return (await regrade(row)) !== null;
    },
    /** Brings page rows up to date; the common case (nothing stale) costs one catalog read a page. */
    async freshen<Row extends ListedRow>(page: Row[]): Promise<Row[]> {
      const keys = await gradeKeys(page.map((row) => ({ slug: row.test_case_slug, version: row.test_case_version })));
      const out: Row[] = [];
      for (const [i, row] of page.entries()) {
        if (row.grade_key === keys[i]) out.push(row);
        else {
          await regrade(row);
          out.push({ ...row, ...(await rows.listed(row.id)) });
        }
      }
      return out;
    },
    /**
     * Regrades every run whose version (or its case's latest version) was ingested since it
     * was graded, letting the event loop turn between every few: a grade is synchronous work,
     * and 20,000 stale runs held the loop for 1.2 s in one go.
     */
    async regradeStale(): Promise<number> {
      let count = 0;
      const candidates = await staleCandidates();
      const currentKeys = await gradeKeys(candidates);
      for (const [i, { slug, version, key }] of candidates.entries()) {
        const current = currentKeys[i]!;
        if (key === current) continue;
        for (const { id } of await runsOfVersion(slug, version)) {
          const row = await rows.listed(id);
          if (row && row.grade_key !== current) {
            await regrade(row);
            if (++count % REGRADES_PER_TURN === 0) await yieldToEventLoop();
          }
        }
      }
      return count;
    },
  };
}

export type RunGrades = ReturnType<typeof runGrades>;

import type { Grade } from './grade-run.js';
import type { ListedRow, RunRow, StoredReview } from './run-rows.js';

const NO_GRADE = '{"rating":null,"aesthetic":null,"validatorRated":false,"score":null}';

export interface RunLinks {
  sourceRepo: string | null;
  playableBuild: string | null;
}

export interface RunDetail extends Grade {
  id: string;
  record: unknown;
  reviews: StoredReview[];
  published: boolean;
  publishedAt: string | null;
  links: RunLinks;
}

const linksOf = (row: ListedRow): RunLinks => ({ sourceRepo: row.link_source_repo, playableBuild: row.link_playable_build });

/**
 * The summary card as JSON text, spliced from the pre-serialized record part and the
 * columns reviews, publication and the catalog keep current: a page never parses a record.
 */
export function summaryCardJson(row: ListedRow): string {
  const summary = row.summary ?? '{}';
  const grade = row.grade ?? NO_GRADE;
  const dynamic = JSON.stringify({
    published: row.published === 1,
    publishedAt: row.published_at,
    links: linksOf(row),
    caseName: row.case_name ?? row.test_case_slug,
    reviewCount: row.review_count,
  });
  return `${summary.slice(0, -1)},${dynamic.slice(1, -1)},${grade.slice(1)}`;
}

export function runDetail(row: RunRow, reviews: StoredReview[]): RunDetail {
  const grade = JSON.parse(row.grade ?? NO_GRADE) as Grade;
  return {
    id: row.id,
    record: JSON.parse(row.record),
    reviews,
    published: row.published === 1,
    publishedAt: row.published_at,
    links: linksOf(row),
    rating: grade.rating,
    aesthetic: grade.aesthetic,
    validatorRated: grade.validatorRated,
    score: grade.score,
  };
}

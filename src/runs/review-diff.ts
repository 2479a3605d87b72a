import type { StoredReview } from './run-rows.js';

export type ReviewContent = Pick<StoredReview, 'ratings' | 'aesthetic' | 'writeup' | 'checklist'>;

export interface ReviewRevision {
  editedAt: string;
  note: string;
  diff: ReviewDiff;
}

export interface ReviewDiff {
  ratings: { domain: string; from: string | null; to: string | null }[];
  aesthetic: { from: string | null; to: string | null } | null;
  verdicts: { id: string; from: string | null; to: string | null; noteChanged: boolean }[];
  writeup: { from: string; to: string } | null;
}

/**
 * The structured prior-to-new difference of an edit, in the new review's order followed by
 * what was withdrawn (review.schema.json ReviewDiff, plus the aesthetic channel).
 */
export function diffReviews(before: ReviewContent, after: ReviewContent): ReviewDiff {
  const oldRatings = new Map(before.ratings.map((entry) => [entry.domain, entry.rating]));
  const newRatings = new Map(after.ratings.map((entry) => [entry.domain, entry.rating]));
  const ratings: ReviewDiff['ratings'] = [];
  for (const [domain, to] of newRatings) if (oldRatings.get(domain) !== to) ratings.push({ domain, from: oldRatings.get(domain) ?? null, to });
  for (const [domain, from] of oldRatings) if (!newRatings.has(domain)) ratings.push({ domain, from, to: null });

  const oldVerdicts = new Map(before.checklist.map((entry) => [entry.id, entry]));
  const newVerdicts = new Map(after.checklist.map((entry) => [entry.id, entry]));
  const verdicts: ReviewDiff['verdicts'] = [];
  for (const [id, verdict] of newVerdicts) {
    const old = oldVerdicts.get(id);
    const noteChanged = (old?.note ?? null) !== (verdict.note ?? null);
    if (old?.status !== verdict.status || noteChanged) verdicts.push({ id, from: old?.status ?? null, to: verdict.status, noteChanged: old !== undefined && noteChanged });
  }
  for (const [id, old] of oldVerdicts) if (!newVerdicts.has(id)) verdicts.push({ id, from: old.status, to: null, noteChanged: false });

  return {
    ratings,
    aesthetic: before.aesthetic === after.aesthetic ? null : { from: before.aesthetic, to: after.aesthetic },
    verdicts,
    writeup: before.writeup === after.writeup ? null : { from: before.writeup, to: after.writeup },
  };
}

export const isEmptyDiff = (diff: ReviewDiff) =>
  diff.ratings.length === 0 && diff.aesthetic === null && diff.verdicts.length === 0 && diff.writeup === null;

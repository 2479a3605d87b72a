import type { ReviewDiff, ReviewRevision } from '../runs/review-diff.js';
import type { StoredReview } from '../runs/run-rows.js';
import { worstAesthetic, type Aesthetic } from '../runs/run-states.js';
import { AESTHETICS } from '../contract/vocabulary.js';
import { parseJson, text, utcColumn } from './source-values.js';
import type { SourceRow } from './source-db.js';

/** The account id rows without one take (D6): reviews of migration #1's in-place forms, jobs from before `job.user_id`. */
export const UNATTRIBUTED = 'original:unattributed';

const isAesthetic = (value: unknown): value is Aesthetic => typeof value === 'string' && (AESTHETICS as readonly string[]).includes(value);

/**
 * Maps one original review and its revisions (by `edited_at`) onto ours: the reviewer's id,
 * display name and username, ratings, writeup and checklist as the original holds them, and
 * the run-wide aesthetic (`review.aesthetic`, else the worst tier of the legacy per-domain
 * `aesthetics`, as the original reads it).
 */
export function mapReview(row: SourceRow, revisions: SourceRow[], notes: string[]): StoredReview {
  const reviewerId = text(row.reviewer_user_id) ?? UNATTRIBUTED;
  if (reviewerId === UNATTRIBUTED) notes.push(`review of run ${text(row.run_id)}: no reviewer (an in-place form of migration #1), imported as ${UNATTRIBUTED}`);
  const list = (value: unknown) => {
    const parsed = parseJson(value);
    return Array.isArray(parsed) ? parsed : [];
  };
  return {
    reviewerId,
    reviewer: text(row.reviewer_display_name) ?? text(row.reviewer_username) ?? reviewerId,
    username: text(row.reviewer_username) ?? reviewerId,
    ratings: list(row.ratings) as StoredReview['ratings'],
    aesthetic: aestheticOf(row),
    writeup: text(row.writeup) ?? '',
    checklist: list(row.checklist) as StoredReview['checklist'],
    reviewedAt: utcColumn(row.reviewed_at) ?? utcColumn(row.edited_at) ?? '1970-01-01T00:00:00.000Z',
    editedAt: utcColumn(row.edited_at),
    revisions: [...revisions]
      .sort((a, b) => String(a.edited_at).localeCompare(String(b.edited_at)) || String(a.id).localeCompare(String(b.id)))
      .map(mapRevision),
  };
}

function aestheticOf(row: SourceRow): string | null {
  if (isAesthetic(row.aesthetic)) return row.aesthetic;
  const legacy = parseJson(row.aesthetics);
  if (!Array.isArray(legacy)) return null;
  const tiers = legacy
    .map((entry: unknown) => (typeof entry === 'object' && entry !== null ? ((entry as Record<string, unknown>).aesthetic ?? (entry as Record<string, unknown>).tier) : entry))
    .filter(isAesthetic);
  return worstAesthetic(tiers);
}

/** A revision's diff leaves out every empty key; ours spells each, and the aesthetic channel the original's diffs lack (`aesthetics` is kept as it came). */
function mapRevision(row: SourceRow): ReviewRevision {
  const parsed = parseJson(row.diff);
  const diff = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const array = (value: unknown) => (Array.isArray(value) ? value : []);
  const aesthetics = array(diff.aesthetics).filter((entry: unknown) => typeof entry === 'object' && entry !== null && !('domain' in (entry as object)));
  const whole = aesthetics[0] as { from?: string; to?: string } | undefined;
  return {
    editedAt: utcColumn(row.edited_at) ?? '',
    note: text(row.note) ?? '',
    diff: {
      ratings: array(diff.ratings).map((entry: Record<string, unknown>) => ({ domain: String(entry.domain ?? ''), from: text(entry.from), to: text(entry.to) })),
      aesthetic: whole ? { from: whole.from ?? null, to: whole.to ?? null } : null,
      verdicts: array(diff.verdicts).map((entry: Record<string, unknown>) => ({ id: String(entry.id ?? ''), from: text(entry.from), to: text(entry.to), noteChanged: entry.noteChanged === true })),
      writeup: typeof diff.writeup === 'object' && diff.writeup !== null ? (diff.writeup as ReviewDiff['writeup']) : null,
    },
  };
}

/** The review columns both digests cover. */
export const REVIEW_DIGEST_COLUMNS = ['run_id', 'reviewer_id', 'reviewer', 'username', 'ratings', 'aesthetic', 'reviewed_at', 'edited_at', 'revisions'] as const;
export const REVIEW_VERBATIM_COLUMNS = ['run_id', 'reviewer_id', 'writeup', 'checklist'] as const;

export const reviewDigestValues = (runId: string, review: StoredReview): unknown[] => [
  runId, review.reviewerId, review.reviewer, review.username, JSON.stringify(review.ratings), review.aesthetic, review.reviewedAt, review.editedAt,
  JSON.stringify(review.revisions),
];

import type { Account } from '../accounts/verify-token.js';
import { OVERALL_VERDICT_ID, verdictIdsOf } from '../catalog/read-review-items.js';
import type { ResolvedVersion } from '../catalog/resolved-version.js';
import type { StoredVersions } from '../catalog/stored-versions.js';
import { notFound, unprocessable } from '../errors.js';
import { reviewItemsOf } from './grade-run.js';
import { diffReviews, isEmptyDiff, type ReviewContent } from './review-diff.js';
import type { RunGrades } from './run-grades.js';
import type { RunRows, StoredReview } from './run-rows.js';
import { AESTHETICS, GRADES, isGrade, RATINGS } from './run-states.js';

export interface ReviewBody {
  ratings?: { domain: string; rating: string }[];
  aesthetic?: string | null;
  writeup?: string;
  checklist?: { id: string; status: string; note?: string | null }[];
  editNote?: string;
}

export interface ReviewDeps {
  rows: RunRows;
  grades: RunGrades;
  versions: StoredVersions;
  onPublishedChanged(): Promise<unknown>;
}

/**
 * `POST /runs/{id}/reviews`: validates the body against the run's case version, then
 * creates the account's review or edits it (a change needs an edit note and leaves a
 * public revision; a re-submission that changes nothing is a no-op).
 */
export async function submitReview(deps: ReviewDeps, runId: string, account: Account, body: ReviewBody) {
  const row = await deps.rows.get(runId);
  if (!row || row.decode_error !== null) throw notFound(`No run ${runId}.`);
  const loaded = await deps.versions.get(row.test_case_slug, row.test_case_version);
  if (!loaded) throw notFound(`Test case version ${row.test_case_slug} ${row.test_case_version} is not ingested, so its review checklist is unknown.`);
  const content = validReview(loaded.stored.resolved, row.variant, body);

  const now = new Date().toISOString();
  // Composed from the review as stored when the run's row is locked, not as read above.
  const outcome = await deps.rows.writeReview(runId, account.id, (existing): StoredReview | null => {
    if (!existing) {
      return { reviewerId: account.id, reviewer: account.displayName, username: account.username, ...content, reviewedAt: now, editedAt: null, revisions: [] };
    }
    const diff = diffReviews(existing, content);
    if (isEmptyDiff(diff)) return null;
    const note = body.editNote?.trim() ?? '';
    if (note === '') throw unprocessable('editNote is required when a re-submission changes the review: say what changed and why.');
    return {
      ...existing,
      reviewer: account.displayName,
      username: account.username,
      ...content,
      editedAt: now,
      revisions: [...existing.revisions, { editedAt: now, note, diff }],
    };
  });
  if (!outcome) throw notFound(`No run ${runId}.`);
  if (!outcome.written) return { id: runId, published: row.published === 1, review: outcome.review };
  await deps.grades.regradeById(runId);
  if (row.published === 1) await deps.onPublishedChanged();
  return { id: runId, published: row.published === 1, review: outcome.review };
}

/** Every review 422 case of http-interface.md (Errors), each with a message naming the problem. */
function validReview(version: ResolvedVersion, variant: string, body: ReviewBody): ReviewContent {
  const ratings = body.ratings ?? [];
  const checklist = body.checklist ?? [];
  const aesthetic = body.aesthetic ?? null;
  const validatorRated = version.engineFormat;

  if (ratings.length === 0 && aesthetic === null && checklist.length === 0) {
    throw unprocessable('The review has no rating on either channel and no checklist verdict.');
  }
  if ((body.writeup ?? '').trim() === '') throw unprocessable('writeup must not be empty.');
  if (validatorRated && ratings.length > 0) {
    throw unprocessable(`ratings is not accepted: ${version.slug} ${version.version} is validator-rated, so its functional rating comes from the validators; give an aesthetic tier instead.`);
  }
  if (!validatorRated && aesthetic !== null) {
    throw unprocessable(`aesthetic is not accepted: ${version.slug} ${version.version} is rated by functional domain ratings, not an aesthetic tier.`);
  }
  if (validatorRated && aesthetic === null) throw unprocessable('aesthetic is required: a validator-rated run is reviewed with an aesthetic tier.');
  if (aesthetic !== null && !(AESTHETICS as readonly string[]).includes(aesthetic)) {
    throw unprocessable(`aesthetic "${aesthetic}" is not a tier (one of ${AESTHETICS.join(', ')}).`);
  }

  if (!validatorRated) {
    const own = version.variants.find((candidate) => candidate.slug === variant)?.domains ?? [];
    const domains = [...version.domains, ...own].map((domain) => domain.id);
    const seen = new Set<string>();
    for (const { domain, rating } of ratings) {
      if (!domains.includes(domain)) throw unprocessable(`ratings names domain "${domain}", which ${version.slug} ${version.version} does not declare.`);
      if (seen.has(domain)) throw unprocessable(`ratings rates domain "${domain}" twice.`);
      if (!(RATINGS as readonly string[]).includes(rating)) throw unprocessable(`ratings gives domain "${domain}" the rating "${rating}", which is not a tier (one of ${RATINGS.join(', ')}).`);
      seen.add(domain);
    }
    const unrated = domains.filter((domain) => !seen.has(domain));
    if (unrated.length > 0) throw unprocessable(`ratings leaves domain ${unrated.map((d) => `"${d}"`).join(', ')} unrated.`);
  }

  const items = reviewItemsOf(version, variant);
  const declared = new Set(items.flatMap(verdictIdsOf));
  // A graded (game jam) checklist also takes the reviewer's whole-game mark.
  const graded = new Set(items.filter((item) => item.graded).flatMap(verdictIdsOf));
  if (graded.size > 0) for (const set of [declared, graded]) set.add(OVERALL_VERDICT_ID);
  const ids = new Set<string>();
  for (const verdict of checklist) {
    if (!declared.has(verdict.id)) throw unprocessable(`checklist names "${verdict.id}", which is not a declared verdict id of this run's checklist.`);
    if (graded.has(verdict.id) && !isGrade(verdict.status)) {
      throw unprocessable(`checklist gives "${verdict.id}" the status "${verdict.status}"; "${verdict.id}" is graded: one of ${GRADES.join(', ')}.`);
    }
    if (!graded.has(verdict.id) && verdict.status !== 'pass' && verdict.status !== 'fail') {
      throw unprocessable(`checklist gives "${verdict.id}" the status "${verdict.status}"; a verdict is pass or fail.`);
    }
    if (ids.has(verdict.id)) throw unprocessable(`checklist gives "${verdict.id}" twice.`);
    ids.add(verdict.id);
  }
  // An ungraded category would silently score zero, so a graded review grades them all.
  const ungraded = [...graded].filter((id) => !ids.has(id));
  if (ungraded.length > 0) {
    throw unprocessable(`checklist leaves ${ungraded.map((id) => `"${id}"`).join(', ')} ungraded; a game jam review grades every category and the whole game ("${OVERALL_VERDICT_ID}").`);
  }

  return {
    ratings: ratings.map(({ domain, rating }) => ({ domain, rating })),
    aesthetic,
    writeup: body.writeup!,
    checklist: checklist.map(({ id, status, note }) => (note ? { id, status, note } : { id, status })),
  };
}

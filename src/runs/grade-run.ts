import type { ResolvedVersion, ReviewItem } from '../catalog/resolved-version.js';
import { OVERALL_VERDICT_ID, verdictIdsOf } from '../catalog/read-review-items.js';
import {
  combinedGrade, GRADE_POINTS, isGrade, RATINGS, UNRATED_TEST_TYPES, worstAesthetic, worstRating, type Aesthetic, type GradeTier, type Rating,
} from './run-states.js';

export interface Verdict {
  id: string;
  status: string;
  note?: string | null;
}

/** The parts of a review grading reads. */
export interface GradedReview {
  ratings: { domain: string; rating: string }[];
  aesthetic: string | null;
  checklist: Verdict[];
}

export interface RunScore {
  earned: number;
  total: number;
  reviews: number;
  /** A graded (game jam) run's reviewers' overall marks combined (combinedGrade); null on binary checklists. */
  overallGrade: string | null;
}

export interface Grade {
  rating: Rating | null;
  aesthetic: Aesthetic | null;
  validatorRated: boolean;
  score: RunScore | null;
}

export interface GradeInput {
  state: string;
  testType: string | null;
  variant: string;
  validatorVerdicts: Record<string, boolean>;
  reviews: GradedReview[];
}

/** The checklist a run of `variant` is held to: the common items, then the variant's own. */
export function reviewItemsOf(version: ResolvedVersion, variant: string): ReviewItem[] {
  const own = version.variants.find((candidate) => candidate.slug === variant)?.reviewItems ?? [];
  return [...version.commonReviewItems, ...own];
}

/**
 * The run's rating, aesthetic and score exactly as `GET /runs/{id}` defines them. Detail,
 * summary card and snapshot all read this one result, so they cannot disagree.
 */
export function gradeRun(input: GradeInput, version: ResolvedVersion | null): Grade {
  const aesthetic = worstAesthetic(input.reviews.flatMap((review) => (review.aesthetic ? [review.aesthetic as Aesthetic] : [])));
  const validatorRated = version?.engineFormat === true;
  if (!version || input.state !== 'completed') return { rating: null, aesthetic, validatorRated, score: null };

  const items = reviewItemsOf(version, input.variant);
  const rated = !(UNRATED_TEST_TYPES as readonly string[]).includes(input.testType ?? '');
  if (validatorRated) {
    const validators = new Map(Object.entries(input.validatorVerdicts));
    const effective = input.reviews.map((review) => overlay(validators, review.checklist));
    const sheets = effective.length > 0 ? effective : [validators];
    return {
      rating: rated ? worstRating(sheets.map((sheet) => cappedRating(items, version, sheet))) : null,
      aesthetic,
      validatorRated,
      score: meanScore(items, sheets, effective.length),
    };
  }
  if (input.reviews.length === 0) return { rating: null, aesthetic, validatorRated, score: null };
  const perReview = input.reviews.map((review) => worstRating(review.ratings.map((entry) => entry.rating as Rating)));
  const ratings = perReview.filter((rating): rating is Rating => rating !== null);
  return {
    rating: rated ? worstRating(ratings) : null,
    aesthetic,
    validatorRated,
    score: items.some((item) => item.graded)
      ? gradedScore(items, input.reviews)
      : meanScore(items, input.reviews.map((review) => overlay(new Map(), review.checklist)), input.reviews.length),
  };
}

/** The functional ratings a ladder's gate reads: the validators' alone, and each review's own. */
export interface GateRatings {
  /** A validator-rated run's rating from the validators' verdicts alone; null on a legacy run. */
  validators: Rating | null;
  /** Each review's functional rating, aligned with `input.reviews`. */
  reviews: (Rating | null)[];
}

/**
 * Per-review ratings for the gate, which counts only the requesting account's own review
 * (and the validators' rating until that account reviews). Null wherever `gradeRun` gives
 * the run no rating at all.
 */
export function gateRatings(input: GradeInput, version: ResolvedVersion | null): GateRatings {
  const none: GateRatings = { validators: null, reviews: input.reviews.map(() => null) };
  if (!version || input.state !== 'completed' || (UNRATED_TEST_TYPES as readonly string[]).includes(input.testType ?? '')) return none;
  if (!version.engineFormat) return { validators: null, reviews: input.reviews.map((review) => worstRating(review.ratings.map((entry) => entry.rating as Rating))) };
  const items = reviewItemsOf(version, input.variant);
  const validators = new Map(Object.entries(input.validatorVerdicts));
  return {
    validators: cappedRating(items, version, validators),
    reviews: input.reviews.map((review) => cappedRating(items, version, overlay(validators, review.checklist))),
  };
}

/**
 * A graded (game jam) checklist: each item earns its grade's points times its weight, the
 * score is the mean across reviews, and `overallGrade` combines the reviews' overall marks.
 * An ungraded item earns nothing (a review must grade them all, so only old reviews have one).
 */
function gradedScore(items: ReviewItem[], reviews: GradedReview[]): RunScore {
  const total = items.reduce((sum, item) => sum + item.weight * GRADE_POINTS.incredible, 0);
  const points = (status: string | undefined) => (status !== undefined && isGrade(status) ? GRADE_POINTS[status] : 0);
  const marks: GradeTier[] = [];
  let sum = 0;
  for (const review of reviews) {
    const sheet = new Map(review.checklist.map((verdict) => [verdict.id, verdict.status]));
    sum += items.reduce((earned, item) => earned + item.weight * points(sheet.get(item.id)), 0);
    const overall = sheet.get(OVERALL_VERDICT_ID);
    if (overall !== undefined && isGrade(overall)) marks.push(overall);
  }
  return { earned: roundPoints(sum / reviews.length), total, reviews: reviews.length, overallGrade: combinedGrade(marks) };
}

const roundPoints = (points: number) => Math.round(points * 1000) / 1000;

/** A review's effective checklist: the validators' verdicts with its overrides laid over them. */
function overlay(validators: Map<string, boolean>, checklist: Verdict[]): Map<string, boolean> {
  const sheet = new Map(validators);
  for (const verdict of checklist) sheet.set(verdict.id, verdict.status === 'pass');
  return sheet;
}

/**
 * Engine-format rating: each failing item caps every domain it names at its `failureCap`;
 * a domain takes its lowest cap (flawless with none) and the run the worst domain.
 * Undecided points cap nothing.
 */
function cappedRating(items: ReviewItem[], version: ResolvedVersion, sheet: Map<string, boolean>): Rating {
  const domains = new Map<string, Rating>(version.domains.map((domain) => [domain.id, 'flawless']));
  for (const item of items) {
    if (!item.failureCap || !verdictIdsOf(item).some((id) => sheet.get(id) === false)) continue;
    for (const domain of item.domains ?? []) {
      const current = domains.get(domain) ?? 'flawless';
      domains.set(domain, worstRating([current, item.failureCap as Rating])!);
    }
  }
  return worstRating([...domains.values()]) ?? RATINGS[0];
}

function earned(items: ReviewItem[], sheet: Map<string, boolean>): number {
  let points = 0;
  for (const item of items) {
    if (item.subItems.length === 0) points += sheet.get(item.id) === true ? item.weight : 0;
    else for (const sub of item.subItems) points += sheet.get(sub.id) === true ? sub.weight : 0;
  }
  return points;
}

function meanScore(items: ReviewItem[], sheets: Map<string, boolean>[], reviews: number): RunScore | null {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  if (items.length === 0 || sheets.length === 0) return null;
  const mean = sheets.reduce((sum, sheet) => sum + earned(items, sheet), 0) / sheets.length;
  return { earned: roundPoints(mean), total, reviews, overallGrade: null };
}

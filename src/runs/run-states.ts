/** Run record states and the classes http-interface.md gives them (States: Run record classes). */
import { AESTHETICS, RATINGS, type Aesthetic, type Rating } from '../contract/vocabulary.js';

export { AESTHETICS, RATINGS, type Aesthetic, type Rating };

export const RUN_STATES = ['completed', 'catastrophic', 'timed-out', 'hung', 'harness-error', 'limit-exceeded', 'infrastructure', 'canceled'] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * Publishable without a review. `limit-exceeded` (a run stopped at its token or cost limit)
 * is the original system's tier; its drivers send it live and its imported runs carry it.
 */
export const FAILURE_TIERS: readonly RunState[] = ['catastrophic', 'timed-out', 'hung', 'harness-error', 'limit-exceeded'];

/** Test types whose runs are graded by the machine, so they never wait in the `unreviewed` queue. */
export const AUTO_GRADED_TEST_TYPES = ['performance', 'adversarial'] as const;

/** Test types that never produce a functional rating. */
export const UNRATED_TEST_TYPES = ['performance', 'game-jam'] as const;

/** Real drivers send `timed_out`, `harness_error` and `limit_exceeded`; the lifted column keeps the hyphenated name. */
export function normalizeRunState(raw: unknown): RunState | null {
  if (typeof raw !== 'string') return null;
  const hyphenated = raw.replaceAll('_', '-');
  return (RUN_STATES as readonly string[]).includes(hyphenated) ? (hyphenated as RunState) : null;
}

export const HARNESS_SLUGS = ['claude', 'codex', 'cline', 'antigravity', 'goose', 'kilo', 'opencode', 'pi', 'gg'] as const;


/** Rank for sorting: higher is better, so `dir=desc` puts the best first. */
export const ratingRank = (rating: Rating): number => RATINGS.length - 1 - RATINGS.indexOf(rating);
export const aestheticRank = (tier: Aesthetic): number => AESTHETICS.length - 1 - AESTHETICS.indexOf(tier);

export function worstRating(ratings: readonly Rating[]): Rating | null {
  return ratings.reduce<Rating | null>((worst, r) => (worst === null || RATINGS.indexOf(r) > RATINGS.indexOf(worst) ? r : worst), null);
}

export function worstAesthetic(tiers: readonly Aesthetic[]): Aesthetic | null {
  return tiers.reduce<Aesthetic | null>((worst, t) => (worst === null || AESTHETICS.indexOf(t) > AESTHETICS.indexOf(worst) ? t : worst), null);
}

/**
 * The graded scale of a game jam's categories and its overall mark, best to worst, with the
 * points each grade earns (review.schema.json VerdictStatus). A graded item is worth
 * `weight * GRADE_POINTS.incredible` points in full.
 */
export const GRADES = ['incredible', 'great', 'neutral', 'poor', 'broken'] as const;
export type GradeTier = (typeof GRADES)[number];
export const GRADE_POINTS: Readonly<Record<GradeTier, number>> = { incredible: 10, great: 8, neutral: 5, poor: 2, broken: 0 };
export const isGrade = (status: string): status is GradeTier => (GRADES as readonly string[]).includes(status);

/**
 * Several reviewers' overall marks as one: the grade nearest their mean points, a tie going
 * to the lower grade, so a split panel never rounds up (8 and 10 make great, 0 and 10
 * neutral). Null with no marks.
 */
export function combinedGrade(marks: readonly GradeTier[]): GradeTier | null {
  if (marks.length === 0) return null;
  const mean = marks.reduce((sum, mark) => sum + GRADE_POINTS[mark], 0) / marks.length;
  let best: GradeTier = 'broken';
  for (const grade of GRADES) {
    const distance = Math.abs(GRADE_POINTS[grade] - mean);
    // GRADES runs best to worst, so `<=` lets the lower of two equally near grades win.
    if (distance <= Math.abs(GRADE_POINTS[best] - mean)) best = grade;
  }
  return best;
}

/** Run record states and the classes http-interface.md gives them (States: Run record classes). */

export const RUN_STATES = ['completed', 'catastrophic', 'timed-out', 'hung', 'harness-error', 'infrastructure', 'canceled'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** Publishable without a review. */
export const FAILURE_TIERS: readonly RunState[] = ['catastrophic', 'timed-out', 'hung', 'harness-error'];

/** Test types whose runs are graded by the machine, so they never wait in the `unreviewed` queue. */
export const AUTO_GRADED_TEST_TYPES = ['performance', 'adversarial'] as const;

/** Test types that never produce a functional rating. */
export const UNRATED_TEST_TYPES = ['performance', 'game-jam'] as const;

/** Real drivers send `timed_out` and `harness_error`; the lifted column keeps the hyphenated name. */
export function normalizeRunState(raw: unknown): RunState | null {
  if (typeof raw !== 'string') return null;
  const hyphenated = raw.replaceAll('_', '-');
  return (RUN_STATES as readonly string[]).includes(hyphenated) ? (hyphenated as RunState) : null;
}

export const HARNESS_SLUGS = ['claude', 'codex', 'cline', 'antigravity', 'goose', 'kilo', 'opencode', 'pi', 'gg'] as const;

/** Functional tiers best to worst, aesthetic tiers best to worst (http-interface.md, Conventions). */
export const RATINGS = ['flawless', 'great', 'passable', 'scuffed', 'broken'] as const;
export type Rating = (typeof RATINGS)[number];
export const AESTHETICS = ['legendary', 'amazing', 'good', 'okay', 'slop'] as const;
export type Aesthetic = (typeof AESTHETICS)[number];

/** Rank for sorting: higher is better, so `dir=desc` puts the best first. */
export const ratingRank = (rating: Rating): number => RATINGS.length - 1 - RATINGS.indexOf(rating);
export const aestheticRank = (tier: Aesthetic): number => AESTHETICS.length - 1 - AESTHETICS.indexOf(tier);

export function worstRating(ratings: readonly Rating[]): Rating | null {
  return ratings.reduce<Rating | null>((worst, r) => (worst === null || RATINGS.indexOf(r) > RATINGS.indexOf(worst) ? r : worst), null);
}

export function worstAesthetic(tiers: readonly Aesthetic[]): Aesthetic | null {
  return tiers.reduce<Aesthetic | null>((worst, t) => (worst === null || AESTHETICS.indexOf(t) > AESTHETICS.indexOf(worst) ? t : worst), null);
}

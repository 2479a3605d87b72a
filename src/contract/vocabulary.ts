/**
 * The contract's closed vocabularies and bounds that wire schemas and domain modules share.
 * They live on the contract's floor so that schemas never import from a domain module.
 */

/** Functional tiers best to worst, aesthetic tiers best to worst (http-interface.md, Conventions). */
export const RATINGS = ['flawless', 'great', 'passable', 'scuffed', 'broken'] as const;
export type Rating = (typeof RATINGS)[number];
export const AESTHETICS = ['legendary', 'amazing', 'good', 'okay', 'slop'] as const;
export type Aesthetic = (typeof AESTHETICS)[number];

/** The run listing's `state` filters and `sort` keys. */
export const LIST_STATES = ['published', 'review', 'failures', 'unreviewed', 'unpublished', 'publishable', 'any'] as const;
export type ListState = (typeof LIST_STATES)[number];
export const SORTS = ['date', 'runtime', 'tokens', 'cost', 'rating', 'testType', 'testCase', 'harness', 'model', 'variant'] as const;
export type Sort = (typeof SORTS)[number];

/**
 * The engines this deployment knows (open-points.md, Names). A case may only declare these,
 * and `?engine=` with anything else is a 400, so a version naming another engine is
 * refused at ingest rather than served with a variant nobody can render.
 */
export const KNOWN_ENGINES: ReadonlyMap<string, { name: string }> = new Map([
  ['none', { name: 'None' }],
  ['simple-2d', { name: 'Simple 2D' }],
  ['structured-2d', { name: 'Structured 2D' }],
  ['decoupled-2d', { name: 'Decoupled 2D' }],
  ['decoupled-3d', { name: 'Decoupled 3D' }],
]);

/** The largest bound a target may name (runs); a reviewer who wants no bound says `unbounded`. */
export const MAX_BUFFER_RUNS = 500;

/** The most runs a review queue lists (the original's cap: above the largest bound, so a full buffer is seen whole). */
export const MAX_QUEUE_RUNS = 600;

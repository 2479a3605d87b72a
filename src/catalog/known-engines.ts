import { badRequest, type HttpError } from '../errors.js';

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

/** The engine every case supports and an absent `?engine=` means. */
export const NO_ENGINE = 'none';

export function isKnownEngine(slug: string): boolean {
  return KNOWN_ENGINES.has(slug);
}

/** The 400 for an engine slug this deployment does not know, the same wherever a request names one. */
export function unknownEngine(slug: string): HttpError {
  return badRequest(`engine "${slug}" is not a known engine (${[...KNOWN_ENGINES.keys()].join(', ')}).`);
}

import { KNOWN_ENGINES } from '../contract/vocabulary.js';
import { badRequest, type HttpError } from '../errors.js';

export { KNOWN_ENGINES };


/** The engine every case supports and an absent `?engine=` means. */
export const NO_ENGINE = 'none';

export function isKnownEngine(slug: string): boolean {
  return KNOWN_ENGINES.has(slug);
}

/** The 400 for an engine slug this deployment does not know, the same wherever a request names one. */
export function unknownEngine(slug: string): HttpError {
  return badRequest(`engine "${slug}" is not a known engine (${[...KNOWN_ENGINES.keys()].join(', ')}).`);
}

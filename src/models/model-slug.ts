import { badRequest } from '../errors.js';

/** A model id as launches, run records and the routing provider name it: `author/name`. */
export interface ModelSlug {
  author: string;
  name: string;
}

const AUTHOR = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// Variants such as `:free` or `:thinking` are part of the name on OpenRouter.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const MAX_LENGTH = 200;

/** Splits and checks a slug; anything that could alter the upstream path is a 400 naming `field`. */
export function parseModelSlug(slug: string, field = 'slug'): ModelSlug {
  const parts = slug.length <= MAX_LENGTH ? slug.split('/') : [];
  const [author, name] = parts;
  if (parts.length !== 2 || !author || !name || !AUTHOR.test(author) || !NAME.test(name)) {
    const shown = slug.length > 80 ? `${JSON.stringify(slug.slice(0, 80))}…` : JSON.stringify(slug);
    throw badRequest(`${field} must look like "author/name" (for example "anthropic/claude-sonnet-4"); got ${shown}.`);
  }
  return { author, name };
}

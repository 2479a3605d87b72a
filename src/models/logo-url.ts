import { badRequest } from '../errors.js';

// A part of a logo path: starts with a letter or digit, so "." and ".." cannot be one.
const PART = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_NAME_LENGTH = 200;

/**
 * Where the logo called `name` lives in the logo library at `baseUrl` (LOGO_BASE_URL).
 *
 * `name` comes from a request, and the server fetches what it names, so it may only point
 * below the base: slash-separated parts of letters, digits, ".", "_" and "-". That leaves
 * no way to write a scheme or host (":", "//"), climb out ("..", "\"), smuggle an encoded
 * form ("%") or append a query or fragment ("?", "#"). The resolved URL is checked against
 * the base as well, so a mistake in the pattern cannot widen the reach.
 */
export function resolveLogoUrl(baseUrl: string, name: string, field = 'name'): URL {
  const base = parseLogoBaseUrl(baseUrl);
  const parts = name.length <= MAX_NAME_LENGTH ? name.split('/') : [];
  if (parts.length === 0 || !parts.every((part) => PART.test(part))) {
    const shown = name.length > 80 ? `${JSON.stringify(name.slice(0, 80))}…` : JSON.stringify(name);
    throw badRequest(
      `${field} must be a logo file name or path inside the logo library, such as "anthropic.svg" ` +
        `(letters, digits, ".", "_" and "-", parts joined by "/", no ".." and no URL); got ${shown}.`,
    );
  }
  const url = new URL(base.pathname + name, base.origin);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname) || url.search || url.hash) {
    throw badRequest(`${field} must name a logo inside the logo library; got ${JSON.stringify(name)}.`);
  }
  return url;
}

/** The base as a folder URL (trailing slash), so logo names resolve below it. */
export function parseLogoBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`The logo library base URL is not a URL: ${JSON.stringify(baseUrl)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`The logo library base URL must be http or https, not ${url.protocol}.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError('The logo library base URL must not carry credentials, a query or a fragment.');
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

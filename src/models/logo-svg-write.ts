import { unprocessable } from '../errors.js';
import { fetchLogoBytes } from './fetch-logo.js';
import { parseLogoBaseUrl } from './logo-url.js';
import type { ModelWrite } from './model-entry.js';
import { sanitizeLogoSvg } from './sanitize-logo-svg.js';

/**
 * The `logoSvg` a model write stores: the body's own markup sanitized, else, when it names a
 * `providerLogoUrl`, that logo fetched from the logo library (LOGO_BASE_URL, its host only)
 * and sanitized the same way; null when the body gives neither.
 */
export async function logoSvgOfWrite(body: Pick<ModelWrite, 'logoSvg' | 'providerLogoUrl'>, logoBaseUrl: string | null): Promise<string | null> {
  if (body.logoSvg?.trim()) return sanitizeLogoSvg(body.logoSvg);
  const url = body.providerLogoUrl?.trim();
  if (!url) return null;
  if (!logoBaseUrl) throw unprocessable('providerLogoUrl cannot be fetched: LOGO_BASE_URL is not configured on this deployment.');
  return logoSvgAt(url, logoBaseUrl, 'providerLogoUrl', unprocessable);
}

/**
 * The sanitized SVG of the logo at `url`, which must lie in the logo library (LOGO_BASE_URL);
 * a URL outside it is refused with `refuse` (a model write's field is 422, the console's
 * `POST /models/logo { url }` 400) naming `field`.
 */
export async function logoSvgAt(url: string, logoBaseUrl: string, field: string, refuse: (message: string) => Error): Promise<string> {
  const { bytes } = await fetchLogoBytes({ baseUrl: logoBaseUrl, name: logoName(url, logoBaseUrl, field, refuse), field });
  return sanitizeLogoSvg(bytes.toString('utf8'), field);
}

/** The library-relative name of a full logo URL; a URL outside the library is refused naming `field`. */
function logoName(url: string, logoBaseUrl: string, field: string, refuse: (message: string) => Error): string {
  const base = parseLogoBaseUrl(logoBaseUrl);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(`${field} must be an absolute URL in the logo library ${base.href}; got ${JSON.stringify(url.slice(0, 200))}.`);
  }
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathname) || parsed.search || parsed.hash || parsed.username) {
    throw refuse(`${field} must point inside the logo library ${base.href}; got ${JSON.stringify(url.slice(0, 200))}.`);
  }
  try {
    return decodeURIComponent(parsed.pathname.slice(base.pathname.length));
  } catch {
    // A `%` not followed by two hex digits (the URL parser keeps it as written).
    throw refuse(`${field} holds malformed percent-encoding (a "%" must be followed by two hex digits); got ${JSON.stringify(url.slice(0, 200))}.`);
  }
}

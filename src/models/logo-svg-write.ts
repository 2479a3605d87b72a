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
  const { bytes } = await fetchLogoBytes({ baseUrl: logoBaseUrl, name: logoName(url, logoBaseUrl), field: 'providerLogoUrl' });
  return sanitizeLogoSvg(bytes.toString('utf8'), 'providerLogoUrl');
}

/** The library-relative name of a full logo URL; a URL outside the library is 422 naming it. */
function logoName(url: string, logoBaseUrl: string): string {
  const base = parseLogoBaseUrl(logoBaseUrl);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw unprocessable(`providerLogoUrl must be an absolute URL in the logo library ${base.href}; got ${JSON.stringify(url.slice(0, 200))}.`);
  }
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathname) || parsed.search || parsed.hash || parsed.username) {
    throw unprocessable(`providerLogoUrl must point inside the logo library ${base.href}; got ${JSON.stringify(url.slice(0, 200))}.`);
  }
  return decodeURIComponent(parsed.pathname.slice(base.pathname.length));
}

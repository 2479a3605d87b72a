import { HttpError, notFound, unprocessable, upstreamUnavailable } from '../errors.js';
import { describeFetchFailure, describeUpstream } from '../http/describe-fetch-failure.js';
import { BodyTooLargeError, formatBytes, readCappedBody } from '../http/read-capped-body.js';
import { SECOND } from '../time.js';
import { parseLogoBaseUrl, resolveLogoUrl } from './logo-url.js';
import { sanitizeLogo } from './sanitize-logo.js';

export interface FetchLogoOptions {
  /** The public logo library every logo comes from (LOGO_BASE_URL), e.g. `https://cdn.example/icons/`. */
  baseUrl: string;
  /** The logo's file name or path below the base, as the client sent it: `anthropic.svg`. */
  name: string;
  /** Largest download accepted, in bytes (default 512 KiB). */
  maxBytes?: number;
  /** Longest side of the returned PNG, in pixels (default 256). */
  maxSize?: number;
  /** Budget of the whole download, redirects included (default 10 s). */
  timeoutMs?: number;
  /** The request field `name` came from, for messages (default `name`). */
  field?: string;
}

export interface FetchedLogo {
  /** A metadata-free PNG at most `maxSize` on its longest side. */
  png: Buffer;
  width: number;
  height: number;
  /** Where the bytes were finally read from, after any redirect inside the library. */
  sourceUrl: string;
}

// CDNs redirect a floating version (`@latest`) to a pinned one; more than this is a loop.
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a logo from the configured library and returns it sanitized (see sanitizeLogo).
 * Errors: a `name` that could leave the library is 400; a logo the library lacks is 404; a
 * file over `maxBytes`, not an image, or too many pixels is 422; a library that cannot be
 * reached, is too slow, fails, or redirects off its site is 502.
 */
export async function fetchLogo(options: FetchLogoOptions): Promise<FetchedLogo> {
  const { bytes, sourceUrl } = await fetchLogoBytes(options);
  const image = await sanitizeLogo(bytes, options.maxSize ?? 256, JSON.stringify(options.name));
  return { ...image, sourceUrl };
}

/** The logo's bytes as the library serves them, unchecked; same errors as fetchLogo for the download. */
export async function fetchLogoBytes(options: Omit<FetchLogoOptions, 'maxSize'>): Promise<{ bytes: Buffer; sourceUrl: string }> {
  const maxBytes = options.maxBytes ?? 512 * 1024;
  const timeoutMs = options.timeoutMs ?? 10 * SECOND;
  const base = parseLogoBaseUrl(options.baseUrl);
  const library = `The logo library at ${describeUpstream(base)}`;
  const label = JSON.stringify(options.name);
  let url = resolveLogoUrl(options.baseUrl, options.name, options.field);

  const signal = AbortSignal.timeout(timeoutMs);
  let bytes: Buffer;
  try {
    let response = await fetch(url, { redirect: 'manual', signal });
    for (let redirects = 0; REDIRECT_STATUSES.has(response.status); redirects += 1) {
      await discard(response);
      const next = redirectTarget(response, url);
      if (next === null) throw upstreamUnavailable(`${library} redirected ${label} without a valid Location.`);
      if (redirects === MAX_REDIRECTS) {
        throw upstreamUnavailable(`${library} redirected ${label} more than ${MAX_REDIRECTS} times.`);
      }
      // The library may move files within its own site, never hand us to another one.
      if (next.origin !== base.origin) {
        throw upstreamUnavailable(`${library} redirected ${label} to ${next.origin}, which is outside the library.`);
      }
      url = next;
      response = await fetch(url, { redirect: 'manual', signal });
    }
    if (response.status === 404 || response.status === 410) {
      await discard(response);
      throw notFound(`The logo library has no logo named ${label}.`);
    }
    if (!response.ok) {
      await discard(response);
      throw upstreamUnavailable(`${library} answered HTTP ${response.status} for ${label}.`);
    }
    bytes = await readCappedBody(response, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw unprocessable(`The logo ${label} is larger than ${formatBytes(maxBytes)}.`);
    if (error instanceof HttpError) throw error;
    throw upstreamUnavailable(`${library} ${describeFetchFailure(error, timeoutMs)}.`, error);
  }

  return { bytes, sourceUrl: url.href };
}

function redirectTarget(response: Response, from: URL): URL | null {
  const location = response.headers.get('location');
  if (location === null) return null;
  try {
    return new URL(location, from);
  } catch {
    return null;
  }
}

/** Drops a body we will not read, so its connection is released. */
async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

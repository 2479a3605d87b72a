import { HttpError, routerKeyMissing, upstreamUnavailable } from '../errors.js';
import { describeFetchFailure, describeUpstream } from '../http/describe-fetch-failure.js';
import { BodyTooLargeError, formatBytes, readCappedBody } from '../http/read-capped-body.js';

export interface RouterTransportOptions {
  /** Where the OpenRouter-compatible API lives (ROUTER_BASE_URL), e.g. `https://openrouter.ai`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when set (ROUTER_API_KEY). */
  apiKey?: string | undefined;
  /** Budget of one call, from connect to the last body byte, in ms. */
  timeoutMs: number;
  fetch: typeof fetch;
}

export interface RouterCall {
  method: 'GET' | 'POST';
  /** Path under the base URL, starting with `/api/v1/`, its segments already encoded. */
  path: string;
  body?: unknown;
  /** Overrides the transport's timeout for this call, in ms. */
  timeoutMs?: number;
  /** The caller's cancellation; its reason is rethrown as is, not turned into a 502. */
  signal?: AbortSignal | undefined;
  /** Answer null for HTTP 404 instead of failing. */
  notFoundAsNull?: boolean;
}

export type SendRouterCall = (call: RouterCall) => Promise<unknown>;

/** The provider's 429: a 502 to an HTTP caller, and to a probe a call to retry after `retryAfterMs` (null when it named no delay). */
export class RouterRateLimitedError extends HttpError {
  constructor(message: string, readonly retryAfterMs: number | null) {
    super('upstream_unavailable', message);
    this.name = 'RouterRateLimitedError';
  }
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : null;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A full `/models` listing is about 1 MB; this only stops a runaway body from filling memory. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_DETAIL_CHARS = 200;

/**
 * The one place that talks HTTP to the routing provider. It turns every way a call can go
 * wrong into an HttpError whose message says what happened, and never puts the API key in
 * one (upstream error text is scrubbed of it too).
 */
export function createRouterTransport(options: RouterTransportOptions): {
  send: SendRouterCall;
  /** "The routing provider at https://openrouter.ai", the subject of every message. */
  subject: string;
  /** The provider's own error text, fit to quote in a message (key scrubbed, one short line), or "". */
  describeProviderMessage: (message: unknown) => string;
} {
  const base = parseBaseUrl(options.baseUrl);
  const subject = `The routing provider at ${describeUpstream(base)}`;
  const prefix = base.href.replace(/\/+$/, '');
  const { apiKey } = options;
  const describeProviderMessage = (message: unknown): string => {
    if (typeof message !== 'string' || message.trim() === '') return '';
    let text = message.trim().replace(/\s+/g, ' ').replace(/\.+$/, '');
    if (apiKey) text = text.split(apiKey).join('[redacted]');
    return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
  };

  async function send(call: RouterCall): Promise<unknown> {
    const what = `${call.method} ${call.path}`;
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';

    let status: number;
    let body: Buffer;
    let location: string | null;
    let retryAfter: string | null;
    try {
      const response = await options.fetch(prefix + call.path, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal,
        // An API that moved is a configuration to fix, and following could carry the key elsewhere.
        redirect: 'manual',
      });
      location = response.headers.get('location');
      retryAfter = response.headers.get('retry-after');
      status = response.status;
      body = await readCappedBody(response, MAX_BODY_BYTES);
    } catch (error) {
      if (call.signal?.aborted && !timeout.aborted) throw call.signal.reason;
      if (error instanceof BodyTooLargeError) {
        throw upstreamUnavailable(`${subject} answered ${what} with a body larger than ${formatBytes(MAX_BODY_BYTES)}.`, error);
      }
      throw upstreamUnavailable(`${subject} ${describeFetchFailure(error, timeoutMs)}.`, error);
    }

    if (status === 404 && call.notFoundAsNull) return null;
    if (status === 401 || status === 403) {
      // Without a key the provider is telling us it wants one: that is a deployment gap.
      if (!apiKey) throw routerKeyMissing();
      throw upstreamUnavailable(`${subject} refused the API key (HTTP ${status}).`);
    }
    if (status >= 300 && status <= 399 && location !== null) {
      throw upstreamUnavailable(
        `${subject} redirected ${what} to ${describeLocation(location, base)}; ROUTER_BASE_URL should name the final address.`,
      );
    }
    if (status < 200 || status > 299) {
      const detail = errorDetail(body, describeProviderMessage);
      if (status === 402) throw upstreamUnavailable(`${subject} refused ${what} for lack of credit (HTTP 402)${detail}.`);
      if (status === 429) throw new RouterRateLimitedError(`${subject} is rate-limiting this backend (HTTP 429)${detail}.`, retryAfterMs(retryAfter));
      throw upstreamUnavailable(`${subject} answered ${what} with HTTP ${status}${detail}.`);
    }
    try {
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch (error) {
      throw upstreamUnavailable(`${subject} answered ${what} with a malformed response: the body is not JSON.`, error);
    }
  }

  return { send, subject, describeProviderMessage };
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`The routing provider base URL is not a URL: ${JSON.stringify(baseUrl)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`The routing provider base URL must be http or https, not ${url.protocol}.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError('The routing provider base URL must not carry credentials, a query or a fragment.');
  }
  return url;
}

/** ": <the provider's own message>" from an OpenAI-style `{ error: { message } }` body, or "". */
function errorDetail(body: Buffer, describe: (message: unknown) => string): string {
  let text: string;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { message?: unknown } } | null;
    text = describe(parsed?.error?.message);
  } catch {
    return '';
  }
  return text ? `: ${text}` : '';
}

/** A redirect target fit for a message: resolved against the base, without credentials or query. */
function describeLocation(location: string, base: URL): string {
  try {
    return describeUpstream(new URL(location, base));
  } catch {
    return 'an unreadable address';
  }
}

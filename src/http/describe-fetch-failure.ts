import { MINUTE, SECOND } from '../time.js';

/**
 * Says in a few words why a `fetch` to an upstream service failed, for messages such as
 * "The routing provider at http://127.0.0.1:1234 <phrase>." Node's fetch wraps network errors
 * in a bare `TypeError('fetch failed')` whose `cause` carries the system error code.
 */
export function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `did not answer within ${formatDuration(timeoutMs)}`;
  const code = systemErrorCode(error);
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused the connection';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'could not be resolved (DNS lookup failed)';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'closed the connection before answering';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'is unreachable from this host';
    case undefined:
      return 'could not be reached';
    default:
      return `could not be reached (${code})`;
  }
}

/** True for the rejection of a request whose `AbortSignal.timeout` fired, during headers or body. */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** "10 s", "250 ms", "2 min": durations in the units a person would say them in. */
export function formatDuration(ms: number): string {
  if (ms >= MINUTE && ms % MINUTE === 0) return `${ms / MINUTE} min`;
  if (ms >= SECOND) return `${Number((ms / SECOND).toFixed(1))} s`;
  return `${ms} ms`;
}

/** An upstream address fit for a message: no credentials, query or fragment. */
export function describeUpstream(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  // The code sits on the cause (undici) or, for some errors, one level deeper.
  for (let depth = 0; depth < 3 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

import { UnusableError } from './cli-io.js';

/** How long a plain (non-streaming) call may take before the service counts as unreachable. */
const CALL_TIMEOUT_MS = 30_000;

/** The service's base URL, checked once, so every call below names a full address. */
export function serviceUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnusableError(`--url "${raw}" is not a URL (for example http://127.0.0.1:8787).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnusableError(`--url must be http or https, not ${url.protocol}`);
  return url;
}

/**
 * `fetch` against the service that turns an unreachable service and an error status into one
 * readable `UnusableError` (the envelope's message when the service sent one).
 */
export async function callService(base: URL, path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Response> {
  const url = new URL(path, base);
  const timeout = AbortSignal.timeout(init.timeoutMs ?? CALL_TIMEOUT_MS);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal });
  } catch (error) {
    if (init.signal?.aborted) throw error;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new UnusableError(`Cannot reach the service at ${url.origin}: ${cause}`);
  }
  if (!response.ok) throw new UnusableError(`${init.method ?? 'GET'} ${url.pathname} answered ${response.status}: ${await envelopeMessage(response)}`);
  return response;
}

async function envelopeMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not JSON: show what came
  }
  return text.slice(0, 200) || response.statusText;
}

/** The lines of a streamed body, decoded, without their newlines (a blank line is a heartbeat). */
export async function* bodyLines(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  let pending = '';
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
    }
  }
  if (pending !== '') yield pending;
}

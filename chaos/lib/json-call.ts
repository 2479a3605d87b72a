export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** From the request's start to the whole body read (ms). */
  ms: number;
}

/**
 * JSON over HTTP to `origin` (a body that is not JSON is kept as text), timed; status 0 when
 * the connection is refused or reset (the process is down), or nothing answers in `timeoutMs`.
 */
export async function call(origin: string, method: string, path: string, token?: string, body?: unknown, timeoutMs = 30_000): Promise<Answer> {
  const began = performance.now();
  try {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: kept as text.
    }
    return { status: response.status, body: parsed, ms: performance.now() - began };
  } catch {
    return { status: 0, body: null, ms: performance.now() - began };
  }
}

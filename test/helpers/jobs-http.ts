import { bearer } from './test-backend.js';

/** JSON over real HTTP against a listening test backend. */
export function jobsHttp(base: string) {
  async function call(method: string, path: string, token?: string, body?: unknown) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
  }
  return {
    post: (path: string, token?: string, body?: unknown) => call('POST', path, token, body),
    put: (path: string, token?: string, body?: unknown) => call('PUT', path, token, body),
    get: (path: string, token?: string) => call('GET', path, token),
    delete: (path: string, token?: string) => call('DELETE', path, token),
  };
}

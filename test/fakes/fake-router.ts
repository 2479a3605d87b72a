import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { cannedModels, type FakeRouterModel } from './fake-router-models.js';
import { listenOnLoopback, readRequestText, sendJson } from './loopback-server.js';

export { FAKE_SLUGS, cannedModels, type FakeRouterModel } from './fake-router-models.js';

/** How the fake answers; it starts `normal`. */
export type FakeRouterMode =
  | { kind: 'normal' }
  /** Answers normally, but only after `ms`. */
  | { kind: 'slow'; ms: number }
  /** Not listening: connections are refused. */
  | { kind: 'down' }
  /** Accepts the request, then closes the connection without a word. */
  | { kind: 'hang-up' }
  /** 200 with a body that is not JSON, or JSON of the wrong shape for the endpoint. */
  | { kind: 'malformed'; shape: 'not-json' | 'wrong-shape' }
  /** Answers every request with `code` and an OpenRouter-style error body. */
  | { kind: 'status'; code: number; message?: string };

export interface RecordedRequest {
  method: string;
  /** Path and query as received, e.g. `/api/v1/models/anthropic/claude-sonnet-4/endpoints`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
}

/** Builds the completion a chat request gets in `normal` mode. */
export type ChatHandler = (body: Record<string, unknown>) => unknown;

/** A scripted chat answer: any status, headers (`Retry-After`), body, and a delay before it is sent. */
export interface FakeChatReply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  delayMs?: number;
}

/** Scripts each chat request's answer in full (see fake-probe-replies.ts); null restores onChat's. */
export type ChatScript = (body: Record<string, unknown>) => FakeChatReply;

export interface FakeRouter {
  /** Base URL, as ROUTER_BASE_URL would be set: `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  setMode(mode: FakeRouterMode): Promise<void>;
  normal(): Promise<void>;
  slow(ms: number): Promise<void>;
  down(): Promise<void>;
  hangUp(): Promise<void>;
  malformed(shape?: 'not-json' | 'wrong-shape'): Promise<void>;
  status(code: number, message?: string): Promise<void>;
  /** Replaces the chat completion reply; null restores the default one-word reply. */
  onChat(handler: ChatHandler | null): void;
  /** Scripts chat answers with status, headers and delay; null goes back to onChat's replies. */
  scriptChat(script: ChatScript | null): void;
  /** Chat requests in flight right now, and the most ever in flight at once. */
  chatInFlight(): { now: number; peak: number };
  close(): Promise<void>;
}

export interface FakeRouterOptions {
  /** When set, any request without `Authorization: Bearer <requireKey>` gets 401. */
  requireKey?: string;
  /** Listings to serve instead of the canned ones. */
  models?: FakeRouterModel[];
}

/** A fake OpenRouter-compatible routing provider on loopback. */
export async function startFakeRouter(options: FakeRouterOptions = {}): Promise<FakeRouter> {
  const models = options.models ?? cannedModels();
  const requests: RecordedRequest[] = [];
  let mode: FakeRouterMode = { kind: 'normal' };
  let chatHandler: ChatHandler | null = null;
  let chatScript: ChatScript | null = null;
  const inFlight = { now: 0, peak: 0 };

  const server = await listenOnLoopback(async (request, response) => {
    const body = parseBody(await readRequestText(request));
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });

    if (mode.kind === 'hang-up') return void request.socket.destroy();
    if (mode.kind === 'status') {
      return sendJson(response, mode.code, { error: { code: mode.code, message: mode.message ?? `Fake status ${mode.code}` } });
    }
    if (mode.kind === 'malformed') return sendMalformed(request, response, mode.shape);
    const answer = () => answerNormally(request, response, body);
    if (mode.kind === 'slow') return server.after(mode.ms, () => !response.destroyed && answer());
    answer();
  });

  function answerNormally(request: IncomingMessage, response: ServerResponse, body: unknown): void {
    if (options.requireKey !== undefined && request.headers.authorization !== `Bearer ${options.requireKey}`) {
      return sendJson(response, 401, { error: { code: 401, message: 'No auth credentials found' } });
    }
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    if (request.method === 'GET' && path === '/api/v1/models') {
      return sendJson(response, 200, { data: models.map(({ endpoints: _endpoints, ...model }) => model) });
    }
    const endpointsPath = /^\/api\/v1\/models\/([^/]+)\/([^/]+)\/endpoints$/.exec(path);
    if (request.method === 'GET' && endpointsPath) {
      const slug = `${decodeURIComponent(endpointsPath[1] ?? '')}/${decodeURIComponent(endpointsPath[2] ?? '')}`;
      const model = models.find((candidate) => candidate.id === slug);
      if (!model) return sendJson(response, 404, { error: { code: 404, message: `No model named ${slug}` } });
      const { endpoints, id, name, description } = model;
      return sendJson(response, 200, { data: { id, name, description, created: 1_750_000_000, endpoints } });
    }
    if (request.method === 'POST' && path === '/api/v1/chat/completions') {
      const chat = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const model = models.find((candidate) => candidate.id === chat.model);
      if (!model) return sendJson(response, 400, { error: { code: 400, message: `${String(chat.model)} is not a valid model ID` } });
      if (chatScript) return sendScripted(response, chatScript(chat));
      return sendJson(response, 200, chatHandler ? chatHandler(chat) : defaultCompletion(model));
    }
    sendJson(response, 404, { error: { code: 404, message: 'Not Found' } });
  }

  function sendScripted(response: ServerResponse, reply: FakeChatReply): void {
    inFlight.now++;
    inFlight.peak = Math.max(inFlight.peak, inFlight.now);
    const send = () => {
      inFlight.now--;
      if (response.destroyed) return;
      const text = JSON.stringify(reply.body);
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...reply.headers });
      response.end(text);
    };
    if (reply.delayMs) server.after(reply.delayMs, send);
    else send();
  }

  async function setMode(next: FakeRouterMode): Promise<void> {
    if (next.kind === 'down') await server.stopListening();
    else await server.resumeListening();
    mode = next;
  }

  return {
    url: server.origin,
    requests,
    setMode,
    normal: () => setMode({ kind: 'normal' }),
    slow: (ms) => setMode({ kind: 'slow', ms }),
    down: () => setMode({ kind: 'down' }),
    hangUp: () => setMode({ kind: 'hang-up' }),
    malformed: (shape = 'not-json') => setMode({ kind: 'malformed', shape }),
    status: (code, message) => setMode(message === undefined ? { kind: 'status', code } : { kind: 'status', code, message }),
    onChat(handler) {
      chatHandler = handler;
    },
    scriptChat(script) {
      chatScript = script;
      inFlight.peak = inFlight.now;
    },
    chatInFlight: () => ({ ...inFlight }),
    close: () => server.close(),
  };
}

function sendMalformed(request: IncomingMessage, response: ServerResponse, shape: 'not-json' | 'wrong-shape'): void {
  if (shape === 'not-json') {
    response.writeHead(200, { 'content-type': 'application/json' });
    return void response.end('{"data": [ {"id": "anthropic/claude');
  }
  const path = request.url ?? '';
  if (path.endsWith('/endpoints')) return sendJson(response, 200, { data: { name: 'Broken', endpoints: [{ tag: 'x' }] } });
  if (path.endsWith('/chat/completions')) return sendJson(response, 200, { id: 'gen-broken' });
  sendJson(response, 200, { data: [{ id: 42, name: 'Broken' }] });
}

function defaultCompletion(model: FakeRouterModel): unknown {
  return {
    id: 'gen-fake-1',
    object: 'chat.completion',
    created: 1_750_000_000,
    model: model.id,
    provider: model.endpoints[0]?.provider_name ?? null,
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
    usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
  };
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

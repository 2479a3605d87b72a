import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatCompletion, ChatCompletionOptions } from '../models/router-client.js';
import { RouterRateLimitedError } from '../models/router-transport.js';
import { SECOND } from '../time.js';
import type { Classification, ProbeReply } from './classify-reply.js';
import { probeCases, type ProbeCase, type ProbeLanguage } from './probe-conversations.js';
import type { CaseCheck } from './probe-labels.js';
import { probeRequestBody } from './probe-request.js';
import type { Probe, ProbeStore } from './probe-store.js';
import { probeVerdict } from './probe-verdict.js';

export interface ProbeRunOptions {
  store: ProbeStore;
  chat(body: Record<string, unknown>, options: ChatCompletionOptions): Promise<ChatCompletion>;
  classify(reply: ProbeReply, check: CaseCheck): Promise<Classification>;
  /** Calls in flight at once. */
  concurrency: number;
  /** Retries of a call the routing provider answered 429, each after its Retry-After. */
  maxRetries: number;
  /** Budget of one call, in ms. */
  callTimeoutMs: number;
  /** Longest wait a Retry-After may impose (default 60 s). */
  maxRetryDelayMs?: number;
  /** The process is shutting down: stop calling and fail the probe, rather than hold the shutdown for its length. */
  shutdown?: AbortSignal;
}

/** A 429 without Retry-After waits 1 s, then 2 s, 4 s …, up to the cap. */
const BACKOFF_BASE_MS = SECOND;

/**
 * Runs a stored, running probe to its end: every case of its arms `samples` times, at most
 * `concurrency` calls in flight, each item stored (and the probe's counts moved) as its call
 * lands. Stops early when the probe stops running under it (a restart failed it). Ends the
 * probe `complete` with its verdict, or `failed` with the first error when no call was scored.
 */
export async function runProbe(probeId: string, options: ProbeRunOptions): Promise<Probe | null> {
  const { store } = options;
  const probe = await store.get(probeId);
  if (!probe || probe.status !== 'running') return probe;
  const cases = probeCases(probe.language as ProbeLanguage | null);
  const calls = cases.flatMap((probeCase) => Array.from({ length: probe.samples }, (_, sample) => ({ probeCase, sample })));
  const stopped = new AbortController();
  const onShutdown = () => stopped.abort();
  options.shutdown?.addEventListener('abort', onShutdown, { once: true });

  // A lane starts its next call as soon as a reply is in; classifying and storing the reply
  // overlap the next call, so the provider always has `concurrency` calls to answer.
  const landing: Array<Promise<void>> = [];
  let failure: unknown;
  const land = async (probeCase: ProbeCase, sample: number, answered: Answered) => {
    const classification = await options.classify(answered.reply, probeCase);
    const item = { ...classification, language: probeCase.language, scenario: probeCase.scenario, prompt: probeCase.prompt, sample, durationMs: answered.durationMs };
    if (!(await store.addItem(probe.id, item))) stopped.abort();
  };
  let next = 0;
  const lane = async () => {
    while (!stopped.signal.aborted && next < calls.length) {
      const { probeCase, sample } = calls[next++]!;
      const answered = await oneCall(probe, probeCase, options, stopped.signal);
      if (answered === null) break;
      landing.push(land(probeCase, sample, answered).catch((error: unknown) => {
        failure ??= error;
        stopped.abort();
      }));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, calls.length)) }, lane));
  await Promise.all(landing);
  options.shutdown?.removeEventListener('abort', onShutdown);
  if (failure !== undefined) throw failure;
  if (options.shutdown?.aborted) {
    await store.finish(probe.id, { status: 'failed', error: 'The backend shut down while this probe ran.', verdict: null, passRate: null });
  }

  if ((await store.get(probe.id))?.status === 'running') {
    const groups = [...new Map(cases.map((c) => [`${c.language}|${c.scenario}`, { language: c.language, scenario: c.scenario }])).values()];
    const { verdict, passRate, scored } = probeVerdict(await store.verdictItems(probe.id), groups);
    if (scored === 0) {
      const first = (await store.firstError(probe.id)) ?? 'no call landed';
      await store.finish(probe.id, { status: 'failed', error: `No call was scored; the first error: ${first}`, verdict: null, passRate: null });
    } else {
      await store.finish(probe.id, { status: 'complete', error: null, verdict, passRate });
    }
  }
  return store.get(probe.id);
}

interface Answered {
  reply: ProbeReply;
  durationMs: number;
}

/** One call, retried after each 429 within bounds; null when the probe stopped meanwhile. */
async function oneCall(probe: Probe, probeCase: ProbeCase, options: ProbeRunOptions, signal: AbortSignal): Promise<Answered | null> {
  const sessionId = randomUUID();
  const body = probeRequestBody({ model: probe.openrouterSlug, probeCase, maxTokens: probe.maxTokens, provider: probe.provider, sessionId });
  const started = performance.now();
  let reply: ProbeReply;
  for (let attempt = 0; ; attempt++) {
    try {
      reply = { ok: true, body: await options.chat(body, { timeoutMs: options.callTimeoutMs, signal }) };
      break;
    } catch (error) {
      if (signal.aborted) return null;
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof RouterRateLimitedError) || attempt >= options.maxRetries) {
        const tries = error instanceof RouterRateLimitedError ? ` (after ${attempt + 1} tries)` : '';
        reply = { ok: false, error: `${message}${tries}` };
        break;
      }
      const delay = Math.min(error.retryAfterMs ?? BACKOFF_BASE_MS * 2 ** attempt, options.maxRetryDelayMs ?? 60 * SECOND);
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        return null;
      }
    }
  }
  return { reply, durationMs: Math.round(performance.now() - started) };
}

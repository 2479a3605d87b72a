import { notFound, routerKeyMissing, upstreamUnavailable } from '../errors.js';
import { SECOND } from '../time.js';
import { parseModelSlug } from './model-slug.js';
import { listingFromEndpoints, type RouterListing } from './router-listing.js';
import {
  MalformedResponseError,
  parseModelEndpoints,
  parseModelList,
  type RouterModel,
  type RouterModelEndpoints,
} from './router-responses.js';
import { createRouterTransport, type RouterCall } from './router-transport.js';

export interface RouterClientOptions {
  /** Where the OpenRouter-compatible API lives (ROUTER_BASE_URL), e.g. `https://openrouter.ai`. */
  baseUrl: string;
  /**
   * ROUTER_API_KEY, sent as a bearer token. Without it, listing reads are sent anonymously
   * (OpenRouter serves them so) and a provider that insists answers `router_key_missing`;
   * chat completions always need it.
   */
  apiKey?: string | undefined;
  /** Budget of each call, from connect to the last body byte (default 10 s). */
  timeoutMs?: number;
  /** Replaces the global fetch, for tests of failures a loopback socket cannot stage. */
  fetch?: typeof fetch;
}

export interface ChatCompletionOptions {
  /** Overrides the client's timeout for this call, in ms: long completions need more than 10 s. */
  timeoutMs?: number;
  /** Cancels the call; the signal's reason is rethrown unchanged. */
  signal?: AbortSignal;
}

/** A provider the routing provider lists for a model, as a probe may pin it. */
export interface ProbeProvider {
  name: string;
  /** The largest context any of its endpoints offers, in tokens; null when none says. */
  contextLength: number | null;
}

/** An OpenAI-style chat completion response, checked only as far as `choices` being a list. */
export type ChatCompletion = Record<string, unknown> & { choices: unknown[] };

export interface RouterClient {
  /** Every model the provider lists (`GET /api/v1/models`). */
  listModels(): Promise<RouterModel[]>;
  /** A model's serving endpoints, or null when the provider does not list the slug. */
  getEndpoints(slug: string): Promise<RouterModelEndpoints | null>;
  /** Display fields and the official endpoint's rates; 404 when the provider does not list the slug. */
  lookupListing(slug: string): Promise<RouterListing>;
  /** The providers serving the model, one entry each; 404 when the provider does not list the slug. */
  probeProviders(slug: string): Promise<ProbeProvider[]>;
  /** `POST /api/v1/chat/completions`, non-streaming, body passed through as given. */
  chatCompletion(body: Record<string, unknown>, options?: ChatCompletionOptions): Promise<ChatCompletion>;
}

/**
 * Client of the OpenRouter-compatible routing provider. Every failure is an HttpError:
 * a bad slug is 400, an unlisted slug 404, a missing key 503 `router_key_missing`, and an
 * unreachable, slow, refusing or incoherent provider 502 `upstream_unavailable`.
 */
export function createRouterClient(options: RouterClientOptions): RouterClient {
  const { send, subject, describeProviderMessage } = createRouterTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 10 * SECOND,
    fetch: options.fetch ?? globalThis.fetch,
  });

  /** Runs a parser over a response, turning a shape mismatch into a 502 that names the field. */
  function parsed<T>(call: RouterCall, json: unknown, parse: (json: unknown) => T): T {
    try {
      return parse(json);
    } catch (error) {
      if (!(error instanceof MalformedResponseError)) throw error;
      throw upstreamUnavailable(
        `${subject} answered ${call.method} ${call.path} with a malformed response: ${error.message}.`,
        error,
      );
    }
  }

  async function getEndpoints(slug: string): Promise<RouterModelEndpoints | null> {
    const { author, name } = parseModelSlug(slug);
    const call: RouterCall = {
      method: 'GET',
      path: `/api/v1/models/${encodeURIComponent(author)}/${encodeURIComponent(name)}/endpoints`,
      notFoundAsNull: true,
    };
    const json = await send(call);
    return json === null ? null : parsed(call, json, (body) => parseModelEndpoints(body, slug));
  }

  async function requireEndpoints(slug: string): Promise<RouterModelEndpoints> {
    const model = await getEndpoints(slug);
    if (!model) throw notFound(`The routing provider does not list the model ${slug}.`);
    return model;
  }

  return {
    async listModels() {
      const call: RouterCall = { method: 'GET', path: '/api/v1/models' };
      return parsed(call, await send(call), parseModelList);
    },

    getEndpoints,

    async lookupListing(slug) {
      return listingFromEndpoints(await requireEndpoints(slug));
    },

    async probeProviders(slug) {
      const model = await requireEndpoints(slug);
      // A provider may serve several endpoints (one per quantization); a probe pins the provider.
      const byName = new Map<string, ProbeProvider>();
      for (const endpoint of model.endpoints) {
        const lengths = [byName.get(endpoint.providerName)?.contextLength, endpoint.contextLength]
          .filter((length): length is number => typeof length === 'number');
        byName.set(endpoint.providerName, {
          name: endpoint.providerName,
          contextLength: lengths.length > 0 ? Math.max(...lengths) : null,
        });
      }
      return [...byName.values()];
    },

    async chatCompletion(body, callOptions = {}) {
      if (!options.apiKey) throw routerKeyMissing();
      const call: RouterCall = {
        method: 'POST',
        path: '/api/v1/chat/completions',
        body,
        timeoutMs: callOptions.timeoutMs,
        signal: callOptions.signal,
      };
      return parsed(call, await send(call), (json) => chatCompletionFrom(json, subject, describeProviderMessage));
    },
  };
}

function chatCompletionFrom(
  json: unknown,
  subject: string,
  describeProviderMessage: (message: unknown) => string,
): ChatCompletion {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MalformedResponseError('the body', 'is not an object');
  }
  const body = json as Record<string, unknown>;
  if (Array.isArray(body.choices)) return body as ChatCompletion;
  // OpenRouter reports some upstream failures as a 200 carrying only `error`.
  const detail = describeProviderMessage((body.error as { message?: unknown } | undefined)?.message);
  if (detail) throw upstreamUnavailable(`${subject} reported an error instead of a completion: ${detail}.`);
  throw new MalformedResponseError('choices', 'is not an array');
}

import { perTokenToPerMtok } from './per-mtok-rate.js';

/**
 * Typed readers for the routing provider's JSON (OpenRouter's wire shapes, snake_case and
 * per-token decimal-string prices), converted to our camelCase, per-Mtok shapes. Fields we
 * rely on are checked; a wrong one throws MalformedResponseError naming its path.
 */

/** Prices per million tokens in USD; null where the provider lists none. */
export interface PerMtokRates {
  inputPerMtok: number | null;
  cachedInputPerMtok: number | null;
  outputPerMtok: number | null;
}

/** One entry of `GET /api/v1/models`. */
export interface RouterModel {
  slug: string;
  /** As listed, usually "<Author>: <Model>", e.g. "Anthropic: Claude Sonnet 4". */
  name: string;
  description: string;
  contextLength: number | null;
  /** The provider's headline price for the model (not necessarily the official endpoint's). */
  rates: PerMtokRates;
}

/** One serving provider of a model, from `GET /api/v1/models/{author}/{slug}/endpoints`. */
export interface RouterEndpoint {
  /** Display name of the endpoint, e.g. "Anthropic | anthropic/claude-sonnet-4". */
  name: string;
  /** Who serves it, e.g. "Anthropic", "Google Vertex", "DeepInfra". */
  providerName: string;
  /** The provider's routing tag, e.g. "anthropic", "deepinfra/fp8"; null when not sent. */
  tag: string | null;
  contextLength: number | null;
  quantization: string | null;
  rates: PerMtokRates;
  /** Request parameters the endpoint honours (`tools`, `tool_choice`, …); null when not listed. */
  supportedParameters?: string[] | null;
}

export interface RouterModelEndpoints {
  slug: string;
  name: string;
  description: string;
  endpoints: RouterEndpoint[];
}

export class MalformedResponseError extends Error {
  constructor(readonly path: string, problem: string) {
    super(`${path} ${problem}`);
    this.name = 'MalformedResponseError';
  }
}

export function parseModelList(json: unknown): RouterModel[] {
  const data = field(object(json, 'the body'), 'data', 'data');
  return array(data, 'data').map((item, index) => {
    const path = `data[${index}]`;
    const model = object(item, path);
    return {
      slug: string(model.id, `${path}.id`),
      name: string(model.name, `${path}.name`),
      description: optionalString(model.description, `${path}.description`) ?? '',
      contextLength: optionalCount(model.context_length, `${path}.context_length`),
      rates: rates(model.pricing, `${path}.pricing`),
    };
  });
}

/** `slug` is the one requested; the provider's `id` may be a versioned permaslug. */
export function parseModelEndpoints(json: unknown, slug: string): RouterModelEndpoints {
  const data = object(field(object(json, 'the body'), 'data', 'data'), 'data');
  return {
    slug,
    name: string(data.name, 'data.name'),
    description: optionalString(data.description, 'data.description') ?? '',
    endpoints: array(data.endpoints, 'data.endpoints').map((item, index) => {
      const path = `data.endpoints[${index}]`;
      const endpoint = object(item, path);
      const providerName = string(endpoint.provider_name, `${path}.provider_name`);
      return {
        name: optionalString(endpoint.name, `${path}.name`) ?? providerName,
        providerName,
        tag: optionalString(endpoint.tag, `${path}.tag`),
        contextLength: optionalCount(endpoint.context_length, `${path}.context_length`),
        quantization: optionalString(endpoint.quantization, `${path}.quantization`),
        rates: rates(endpoint.pricing, `${path}.pricing`),
        supportedParameters: optionalStrings(endpoint.supported_parameters, `${path}.supported_parameters`),
      };
    }),
  };
}

/** A missing `pricing` block lists no rate at all, which is what it says. */
function rates(value: unknown, path: string): PerMtokRates {
  if (value === undefined || value === null) return { inputPerMtok: null, cachedInputPerMtok: null, outputPerMtok: null };
  const pricing = object(value, path);
  return {
    inputPerMtok: rate(pricing.prompt, `${path}.prompt`),
    cachedInputPerMtok: rate(pricing.input_cache_read, `${path}.input_cache_read`),
    outputPerMtok: rate(pricing.completion, `${path}.completion`),
  };
}

/** An absent, null or empty price is "not listed"; anything else must be a decimal. */
function rate(value: unknown, path: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new MalformedResponseError(path, 'is not a decimal string');
  }
  try {
    return perTokenToPerMtok(value);
  } catch {
    throw new MalformedResponseError(path, `is not a decimal string (${JSON.stringify(value).slice(0, 40)})`);
  }
}

function field(value: Record<string, unknown>, key: string, path: string): unknown {
  if (!(key in value)) throw new MalformedResponseError(path, 'is missing');
  return value[key];
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedResponseError(path, 'is not an object');
  }
  return value as Record<string, unknown>;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new MalformedResponseError(path, 'is not an array');
  return value;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') throw new MalformedResponseError(path, 'is not a non-empty string');
  return value;
}

function optionalString(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new MalformedResponseError(path, 'is not a string');
  return value;
}

function optionalStrings(value: unknown, path: string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new MalformedResponseError(path, 'is not a list of strings');
  return value;
}

function optionalCount(value: unknown, path: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new MalformedResponseError(path, 'is not a non-negative number');
  }
  return Math.trunc(value);
}

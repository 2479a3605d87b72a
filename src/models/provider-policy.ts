import { unprocessable } from '../errors.js';
import type { ModelWrite, ProviderPolicy } from './model-entry.js';
import { parseModelSlug } from './model-slug.js';
import { providerKey, QUANTIZATION_LEVELS } from './quantization.js';

/** The policy and routing fields of a write, checked and normalised; an omitted field is cleared (whole write). */
export interface PolicyWrite extends ProviderPolicy {
  openrouterSlug: string | null;
  /** A hand-set pin, or null to follow the observed official provider. */
  providerPin: string | null;
}

/** Checks the gg provider policy fields of a write; each refusal is a 422 naming the field and the value. */
export function policyWrite(body: ModelWrite): PolicyWrite {
  return {
    openrouterSlug: routingSlug(body.openrouterSlug),
    providerPin: blankToNull(body.providerPin),
    nativeQuantization: nativeQuantization(body.nativeQuantization),
    quantizationFilter: body.quantizationFilter ?? true,
    ...priceCeiling(body.maxInputPrice ?? null, body.maxOutputPrice ?? null),
    bannedProviders: providerList(body.bannedProviders),
    unknownQuantizationProviders: providerList(body.unknownQuantizationProviders),
  };
}

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

function routingSlug(value: string | null | undefined): string | null {
  const slug = blankToNull(value);
  if (slug === null) return null;
  try {
    parseModelSlug(slug, 'openrouterSlug');
  } catch (error) {
    throw unprocessable((error as Error).message);
  }
  return slug;
}

function nativeQuantization(value: string | null | undefined): string | null {
  const level = blankToNull(value)?.toLowerCase() ?? null;
  if (level !== null && !QUANTIZATION_LEVELS.includes(level)) {
    throw unprocessable(`nativeQuantization must be one of ${QUANTIZATION_LEVELS.join(', ')}; got ${JSON.stringify(value)}.`);
  }
  return level;
}

function priceCeiling(input: number | null, output: number | null): Pick<ProviderPolicy, 'maxInputPrice' | 'maxOutputPrice'> {
  if ((input === null) !== (output === null)) {
    const missing = input === null ? 'maxInputPrice' : 'maxOutputPrice';
    throw unprocessable(`maxInputPrice and maxOutputPrice are set together or not at all; ${missing} is missing.`);
  }
  for (const [field, value] of [['maxInputPrice', input], ['maxOutputPrice', output]] as const) {
    if (value !== null && !(value > 0)) throw unprocessable(`${field} must be greater than 0 (USD per Mtok); got ${value}.`);
  }
  return { maxInputPrice: input, maxOutputPrice: output };
}

/** Trimmed, blanks dropped, one spelling per provider key (the first one given). */
function providerList(names: string[] | null | undefined): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const raw of names ?? []) {
    const name = raw.trim();
    const key = providerKey(name);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(name);
  }
  return kept;
}

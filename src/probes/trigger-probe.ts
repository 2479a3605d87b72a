import { randomUUID } from 'node:crypto';
import { conflict, notFound, routerKeyMissing, unprocessable } from '../errors.js';
import type { ModelCatalogStore } from '../models/model-catalog-store.js';
import { routingIdOf } from '../models/model-entry.js';
import { parseModelSlug } from '../models/model-slug.js';
import { isProbeLanguage, PROBE_LANGUAGES, probeCases } from './probe-conversations.js';
import type { Probe, ProbeStore } from './probe-store.js';

export interface ProbeTrigger {
  provider?: string | null;
  language?: string | null;
  samples?: number | null;
  maxTokens?: number | null;
}

export const SAMPLES = { default: 8, min: 1, max: 128 };
export const MAX_TOKENS = { default: 3500, min: 256, max: 16000 };

export interface TriggerDeps {
  models: Pick<ModelCatalogStore, 'get'>;
  probes: ProbeStore;
  hasRouterKey: boolean;
  enqueue(probeId: string): Promise<void>;
}

/**
 * `POST /models/{slug}/probes`: checks the request (404 unknown model; 422 bad samples,
 * maxTokens or language, or no routing id; 503 without a routing-provider key; 409 while one
 * runs), stores the probe running and queues it. Answers the stored row.
 */
export async function triggerProbe(deps: TriggerDeps, slug: string, body: ProbeTrigger): Promise<Probe> {
  const entry = await deps.models.get(slug);
  if (!entry) throw notFound(`The model catalog has no entry ${slug}.`);
  const samples = bounded('samples', body.samples, SAMPLES, 'calls per case');
  const maxTokens = bounded('maxTokens', body.maxTokens, MAX_TOKENS, 'completion tokens per call');
  // Trimmed, a blank one read as absent (every arm), as the original reads it.
  const language = body.language?.trim() || null;
  if (language !== null && !isProbeLanguage(language)) {
    throw unprocessable(`language must be one of ${PROBE_LANGUAGES.join(', ')} (or absent for every arm); got ${JSON.stringify(language)}.`);
  }
  const openrouterSlug = routingIdOf(entry);
  try {
    parseModelSlug(openrouterSlug);
  } catch {
    throw unprocessable(`The model ${slug} has no routing-provider id to probe: its slug is not author/name and its entry sets no openrouterSlug.`);
  }
  if (!deps.hasRouterKey) throw routerKeyMissing();

  const cases = probeCases(language);
  const id = randomUUID();
  const created = await deps.probes.create({
    id, modelSlug: slug, openrouterSlug, provider: body.provider?.trim() || null, language, samples, maxTokens,
    callCount: cases.length * samples, createdAt: new Date().toISOString(),
  }, cases.map(({ language: arm, scenario, prompt, messages }) => ({ language: arm, scenario, prompt, messages })));
  if (!created) {
    const running = await deps.probes.running(slug);
    throw conflict(`A probe of ${slug} is already running${running ? ` (${running.id}, started ${running.createdAt})` : ''}; wait for it to finish.`);
  }
  try {
    await deps.enqueue(id);
  } catch (error) {
    await deps.probes.finish(id, { status: 'failed', error: 'The probe could not be queued.', verdict: null, passRate: null });
    throw error;
  }
  return (await deps.probes.get(id))!;
}

function bounded(field: string, value: number | null | undefined, bounds: { default: number; min: number; max: number }, unit: string): number {
  if (value === undefined || value === null) return bounds.default;
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw unprocessable(`${field} must be a whole number from ${bounds.min} to ${bounds.max} (${unit}); got ${value}.`);
  }
  return value;
}

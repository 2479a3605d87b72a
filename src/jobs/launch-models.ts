/**
 * The model rule every enqueue path applies: a launch naming a model the catalog does not
 * know, or one the routing provider quotes no rate for, is refused with the reason. The
 * model catalog's `launchModelAdmission` implements it.
 */
export interface LaunchModels {
  admit(modelId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** The routing prefix provider-routed harnesses put before a routing provider's model id. */
const ROUTER_PREFIX = 'openrouter/';
/** The provider a provider-routed harness reaches its model through when the launch names none. */
const DEFAULT_PROVIDER = 'openrouter';
/** Harnesses that reach their model through a provider (and record the routed id on their runs). */
const PROVIDER_ROUTED_HARNESSES: readonly string[] = ['opencode', 'kilo'];

/**
 * The model id a run is launched with and records: a provider-routed harness routed through
 * the routing provider (the default) launches `openrouter/<model>`, never prefixed twice;
 * every other harness, and any other provider, launches the id as written.
 */
export function launchModelId(model: string, harness: string, provider: string | null | undefined): string {
  return routedThroughRouter(harness, provider) && !model.startsWith(ROUTER_PREFIX) ? `${ROUTER_PREFIX}${model}` : model;
}

/** Whether a launch goes through the routing provider under its prefix: a provider-routed harness on the default provider. */
export const routedThroughRouter = (harness: string, provider: string | null | undefined): boolean =>
  PROVIDER_ROUTED_HARNESSES.includes(harness) && (provider ?? DEFAULT_PROVIDER) === DEFAULT_PROVIDER;

/** The catalog's id of a launched model: the routing prefix dropped (only provider-routed harnesses add it). */
export const canonicalModelId = (model: string): string => (model.startsWith(ROUTER_PREFIX) ? model.slice(ROUTER_PREFIX.length) : model);

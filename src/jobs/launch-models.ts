/**
 * The model rule every enqueue path applies: a launch naming a model the catalog does not
 * know, or one the routing provider quotes no rate for, is refused with the reason. The
 * model catalog's `launchModelAdmission` implements it.
 */
export interface LaunchModels {
  admit(modelId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

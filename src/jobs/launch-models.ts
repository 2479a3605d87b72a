/**
 * The model rule every enqueue path applies: a launch naming a model the catalog does not
 * know, or one the routing provider quotes no rate for, is refused with the reason. The
 * model catalog area owns the real implementation and hands it to `buildApp`.
 */
export interface LaunchModels {
  admit(modelId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/**
 * Stand-in until the model catalog is wired in: admits every model id. It keeps launches
 * working end to end; a deployment that must refuse unpriced models passes the catalog's
 * implementation to `buildApp({ models })`.
 */
export const admitEveryModel: LaunchModels = {
  admit: async () => ({ ok: true }),
};

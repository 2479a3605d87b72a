import type { GgRunBodyT } from '../contract/gg.js';
import { badRequest } from '../errors.js';
import { bindGgModels, ggRootModel } from './bind-gg-models.js';
import { enqueuePrepared, prepareLaunch, type GgLaunch, type LaunchOptions } from './enqueue-runs.js';
import type { JobsContext } from './jobs-context.js';

/** `POST /gg/runs`: a gg-native launch from a saved preset or an inline capability set. */
export async function launchGgRun(ctx: JobsContext, accountId: string, body: GgRunBodyT, options: LaunchOptions = {}): Promise<string> {
  if (Boolean(body.presetId) === Boolean(body.capabilitySet)) {
    throw badRequest('A gg run names exactly one of presetId (a saved configuration) and capabilitySet.');
  }
  let gg: GgLaunch;
  if (body.presetId) {
    const config = await ctx.ggConfigs.get(accountId, body.presetId);
    if (!config) throw badRequest(`presetId "${body.presetId}" names no gg configuration of this account.`);
    // The launch's slotModels replace the saved ones by name; both replace the set's own bindings.
    const slotModels = bindGgModels(config.capabilitySet, { ...config.slotModels, ...body.slotModels });
    gg = { configId: config.id, preset: config.name, capabilitySet: config.capabilitySet, slotModels };
  } else {
    gg = { configId: null, preset: null, capabilitySet: body.capabilitySet!, slotModels: bindGgModels(body.capabilitySet!, body.slotModels ?? {}) };
  }
  // bindGgModels refused a launch that binds no model, so there is a root model.
  const model = ggRootModel(gg.slotModels)!;
  const launch = {
    testCase: body.testCase,
    version: body.version,
    variant: body.variant ?? 'base',
    harness: 'gg',
    model,
    engine: body.engine ?? null,
    maxRuntimeSeconds: body.maxRuntimeSeconds ?? null,
    retryCount: body.retryCount ?? null,
    presetId: body.presetId ?? null,
  };
  const prepared = await prepareLaunch(ctx, accountId, launch, options, new Map(), gg);
  const [jobId] = await enqueuePrepared(ctx, [prepared], options.origin ?? null);
  return jobId!;
}

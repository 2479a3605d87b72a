import type { GgRunBodyT } from '../api/schemas/gg.js';
import { badRequest } from '../errors.js';
import { enqueuePrepared, prepareLaunch, type GgLaunch, type LaunchOptions } from './enqueue-runs.js';
import type { JobsContext } from './jobs-context.js';

/** The model a gg run is listed under: the `root` slot's, else the first slot in name order. */
export function ggRootModel(slotModels: Record<string, string>): string | null {
  if (slotModels.root) return slotModels.root;
  const first = Object.keys(slotModels).sort()[0];
  return first === undefined ? null : slotModels[first]!;
}

/** `POST /gg/runs`: a gg-native launch from a saved preset or an inline capability set. */
export async function launchGgRun(ctx: JobsContext, accountId: string, body: GgRunBodyT, options: LaunchOptions = {}): Promise<string> {
  if (Boolean(body.presetId) === Boolean(body.capabilitySet)) {
    throw badRequest('A gg run names exactly one of presetId (a saved configuration) and capabilitySet.');
  }
  let gg: GgLaunch;
  if (body.presetId) {
    const config = ctx.ggConfigs.get(accountId, body.presetId);
    if (!config) throw badRequest(`presetId "${body.presetId}" names no gg configuration of this account.`);
    gg = { configId: config.id, preset: config.name, capabilitySet: config.capabilitySet, slotModels: body.slotModels ?? config.slotModels };
  } else {
    gg = { configId: null, preset: null, capabilitySet: body.capabilitySet!, slotModels: body.slotModels ?? {} };
  }
  const model = ggRootModel(gg.slotModels);
  if (!model) throw badRequest('slotModels must bind a model to at least one launch slot (the root agent runs on it).');
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

import type { GgConfigBodyT } from '../contract/gg.js';
import type { GgConfig } from '../db/gg-configs-table.js';
import { bindGgModels } from './bind-gg-models.js';
import type { JobsContext } from './jobs-context.js';

/**
 * `POST /gg/configs` and `PUT /gg/configs/{id}`: a configuration is saved only if a launch
 * from it could bind a model to every agent (400 naming the one left without). Its
 * `slotModels` are kept as written: they override the set's own bindings at launch.
 * The update answers null when the account holds no such configuration.
 */
export function createGgConfig(ctx: JobsContext, accountId: string, body: GgConfigBodyT): Promise<GgConfig> {
  return ctx.ggConfigs.create(accountId, launchable(body));
}

export async function updateGgConfig(ctx: JobsContext, accountId: string, id: string, body: GgConfigBodyT): Promise<GgConfig | null> {
  if (!(await ctx.ggConfigs.get(accountId, id))) return null;
  return ctx.ggConfigs.update(accountId, id, launchable(body));
}

/** The configuration to store, once a launch from it is known to bind every agent. */
function launchable(body: GgConfigBodyT): Omit<GgConfig, 'id'> {
  const config = { name: body.name, capabilitySet: body.capabilitySet, slotModels: body.slotModels ?? {} };
  bindGgModels(config.capabilitySet, config.slotModels);
  return config;
}

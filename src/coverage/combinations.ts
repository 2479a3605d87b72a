/**
 * Combinations (shared by coverage groups, plans and ladders): what a cell's runs are
 * executed by. The harness shape names `harness`, `model`, `provider?`; the gg shape names
 * `ggConfigId: "saved:<id>"` and `ggSlotModels`, and runs the gg harness. This module checks
 * a member on save, stores it canonically, and resolves it on read against the account's gg
 * configurations (current name, slot bindings, root model, and why it cannot launch).
 */
import { HARNESS_SLUGS } from '../contract/jobs.js';
import type { CombinationInT } from '../contract/coverage.js';
import type { GgConfig } from '../db/gg-configs-table.js';
import { badRequest, HttpError } from '../errors.js';
import { bindGgModels, boundModelKey, ggRootModel } from '../jobs/bind-gg-models.js';
import type { GgLaunch } from '../jobs/enqueue-runs.js';
import { canonicalModelId, launchModelId, routedThroughRouter } from '../jobs/launch-models.js';

/** A member as stored: a gg member keeps `harness: 'gg'`, an empty model and its slot models. */
export interface StoredCombination {
  harness: string;
  model: string;
  provider: string | null;
  ggConfigId: string | null;
  ggSlotModels: Record<string, string>;
}

/** A member resolved for counting and launching. */
export interface ResolvedCombination {
  harness: string;
  /** A gg member's root agent model (the model its runs are listed under). */
  model: string;
  /**
   * The model its runs are launched with and record: `openrouter/<model>` for a
   * provider-routed harness routed through the routing provider, else `model`.
   */
  launchModel: string;
  /** The model ids a run of its cell may record: the launch model and, when routed, the bare one. */
  runModels: [string, string];
  /** A gg member's bound models as `boundModelKey` writes them (its cell's identity), null on a harness member. */
  ggModels: string | null;
  provider: string | null;
  ggConfigId: string | null;
  ggConfigName: string | null;
  ggSlotModels: Record<string, string>;
  /** The gg configuration's row id (what jobs record), null on a harness member. */
  ggConfigRowId: string | null;
  /** What a gg launch of this member sends; null on a harness member or when the configuration is gone. */
  gg: GgLaunch | null;
  /** Why it cannot be launched whatever the case, or null. */
  unlaunchable: string | null;
  /**
   * The member as written, for de-duplication and for a ladder's steering and verdicts:
   * harness, model and provider on a harness member; configuration, root model and the
   * member's own bindings on a gg one. Two members with different keys may still name one
   * cell (see `cellIdentity`).
   */
  key: string;
  /** What its runs are counted by with any case: harness, launch model, gg configuration and bound models. */
  cellIdentity: string;
}

const sortedBindings = (slotModels: Record<string, string>) => boundModelKey(Object.fromEntries(Object.entries(slotModels).map(([slot, model]) => [slot.trim(), model.trim()])));
const identityOf = (harness: string, launchModel: string, configRowId: string | null, ggModels: string | null) =>
  JSON.stringify([harness, launchModel, configRowId ?? '', ggModels ?? '']);

const SAVED = /^saved:(.+)$/;

/** The gg configuration row id a `saved:<id>` key names, or null when it is not of that form. */
export const ggConfigRowId = (ggConfigId: string): string | null => SAVED.exec(ggConfigId)?.[1] ?? null;

/**
 * Checks written members and returns them canonically. `field` is the members' path in the
 * body (`body.combos`); `ownsConfig` answers whether the account holds a gg configuration.
 */
export function checkCombinations(members: CombinationInT[], field: string, ownsConfig: (rowId: string) => boolean): StoredCombination[] {
  return members.map((member, index) => {
    const at = `${field}[${index}]`;
    if (member.ggConfigId !== undefined && member.ggConfigId !== null) {
      const rowId = ggConfigRowId(member.ggConfigId);
      if (!rowId) throw badRequest(`${at}.ggConfigId "${member.ggConfigId}" is not of the form saved:<id>.`);
      if (member.harness !== undefined && member.harness !== 'gg') {
        throw badRequest(`${at}.harness "${member.harness}" conflicts with ggConfigId: a gg member runs the gg harness.`);
      }
      if (!ownsConfig(rowId)) throw badRequest(`${at}.ggConfigId "${member.ggConfigId}" names no gg configuration of this account.`);
      return { harness: 'gg', model: '', provider: null, ggConfigId: member.ggConfigId, ggSlotModels: member.ggSlotModels ?? {} };
    }
    if (member.harness === undefined) throw badRequest(`${at}.harness is required on a member without ggConfigId.`);
    if (!(HARNESS_SLUGS as readonly string[]).includes(member.harness)) {
      throw badRequest(`${at}.harness "${member.harness}" is not one of ${HARNESS_SLUGS.join(', ')} (a gg member names ggConfigId instead).`);
    }
    if (!member.model) throw badRequest(`${at}.model is required on a harness member.`);
    if (member.ggSlotModels && Object.keys(member.ggSlotModels).length > 0) throw badRequest(`${at}.ggSlotModels applies to gg members only.`);
    return { harness: member.harness, model: member.model, provider: member.provider ?? null, ggConfigId: null, ggSlotModels: {} };
  });
}

/** Resolves stored members against the account's gg configurations (`configOf` looks one up by row id). */
export function resolveCombination(member: StoredCombination, configOf: (rowId: string) => GgConfig | null): ResolvedCombination {
  if (member.ggConfigId === null) {
    const launchModel = launchModelId(member.model, member.harness, member.provider);
    return {
      ...member,
      launchModel,
      // OpenCode records the routed id; a hand launch or another driver may record the bare one.
      runModels: routedThroughRouter(member.harness, member.provider) ? [launchModel, canonicalModelId(launchModel)] : [launchModel, launchModel],
      ggModels: null,
      ggConfigName: null,
      ggConfigRowId: null,
      gg: null,
      unlaunchable: null,
      // A member without a provider keeps the key steering and verdicts were stored under before providers counted.
      key: `h|${member.harness}|${member.model}${member.provider === null ? '' : `|${member.provider}`}`,
      cellIdentity: identityOf(member.harness, launchModel, null, null),
    };
  }
  const rowId = ggConfigRowId(member.ggConfigId) ?? member.ggConfigId;
  const config = configOf(rowId);
  // The member's bindings override the configuration's, slot by slot, and both the set's own.
  const merged = { ...(config?.slotModels ?? {}), ...member.ggSlotModels };
  const bound = config ? boundModels(config.capabilitySet, merged) : { slotModels: merged, problem: null };
  const slotModels = bound.slotModels;
  const model = ggRootModel(slotModels) ?? '';
  let unlaunchable: string | null = null;
  if (!config) unlaunchable = `gg configuration ${member.ggConfigId} no longer exists.`;
  else if (model === '') unlaunchable = `gg configuration ${member.ggConfigId} binds no model to any launch slot.`;
  else if (bound.problem) unlaunchable = `gg configuration ${member.ggConfigId}: ${bound.problem}`;
  const ggModels = config && !unlaunchable ? boundModelKey(slotModels) : null;
  const own = Object.keys(member.ggSlotModels).length === 0 ? '' : `|${sortedBindings(member.ggSlotModels)}`;
  return {
    harness: 'gg',
    model,
    launchModel: model,
    runModels: [model, model],
    ggModels,
    provider: null,
    ggConfigId: member.ggConfigId,
    ggConfigName: config?.name ?? null,
    ggSlotModels: member.ggSlotModels,
    ggConfigRowId: rowId,
    gg: config ? { configId: config.id, preset: config.name, capabilitySet: config.capabilitySet, slotModels } : null,
    unlaunchable,
    key: `g|${rowId}|${model}${own}`,
    cellIdentity: identityOf('gg', model, rowId, ggModels),
  };
}

/** The read shape of a member (groups, plans, cells). */
export const combinationView = (combo: ResolvedCombination) => ({
  harness: combo.harness,
  model: combo.model,
  provider: combo.provider,
  ggConfigId: combo.ggConfigId,
  ggConfigName: combo.ggConfigName,
  ggSlotModels: combo.ggSlotModels,
});

/** A configuration's bindings as a launch would make them, or why a launch would refuse them. */
function boundModels(capabilitySet: Record<string, unknown>, slotModels: Record<string, string>): { slotModels: Record<string, string>; problem: string | null } {
  try {
    return { slotModels: bindGgModels(capabilitySet, slotModels), problem: null };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { slotModels, problem: error.message };
  }
}

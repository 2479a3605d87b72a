import type { ComboBodyT } from '../api/schemas/ladders.js';
import { HARNESS_SLUGS } from '../api/schemas/jobs.js';
import type { GgConfigsTable } from '../db/gg-configs-table.js';
import type { StoredCombo } from '../db/ladders-table.js';
import { badRequest } from '../errors.js';
import { ggRootModel } from '../jobs/launch-gg-run.js';

const SAVED = /^saved:(.+)$/;
const HARNESSES = new Set<string>(HARNESS_SLUGS);

/** Reads one written combination in either shape; throws the 400 naming the field at fault. */
export function readCombo(ggConfigs: GgConfigsTable, accountId: string, body: ComboBodyT, where: string): StoredCombo {
  if (body.ggConfigId) {
    const id = SAVED.exec(body.ggConfigId)?.[1];
    if (!id) throw badRequest(`${where}.ggConfigId "${body.ggConfigId}" is not of the form saved:<id>.`);
    if (body.harness && body.harness !== 'gg') throw badRequest(`${where}.harness "${body.harness}" cannot run a gg configuration; a gg member's harness is gg.`);
    if (!ggConfigs.get(accountId, id)) throw badRequest(`${where}.ggConfigId "${body.ggConfigId}" names no gg configuration of this account.`);
    return { harness: 'gg', model: '', provider: null, ggConfigId: body.ggConfigId, ggSlotModels: sortedSlots(body.ggSlotModels ?? {}) };
  }
  if (!body.harness) throw badRequest(`${where}.harness is required on a harness member (or name ggConfigId for a gg member).`);
  if (!HARNESSES.has(body.harness)) throw badRequest(`${where}.harness "${body.harness}" is not one of ${HARNESS_SLUGS.join(', ')} (a gg member names ggConfigId).`);
  if (!body.model) throw badRequest(`${where}.model is required on a harness member.`);
  return { harness: body.harness, model: body.model, provider: body.provider || null, ggConfigId: null, ggSlotModels: {} };
}

const sortedSlots = (slots: Record<string, string>) => Object.fromEntries(Object.entries(slots).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * A combination's canonical key: `harness|model|provider` for a harness member, and for a gg
 * member the configuration plus the model bound to each slot, so two climbers of one
 * configuration on different models stay two climbers. Written and compared, never parsed.
 */
export function comboKey(combo: StoredCombo): string {
  if (combo.ggConfigId) return `gg|${combo.ggConfigId}|${Object.entries(sortedSlots(combo.ggSlotModels)).map(([slot, model]) => `${slot}=${model}`).join(',')}`;
  return `${combo.harness}|${combo.model}|${combo.provider ?? ''}`;
}

/** A combination as read: the gg configuration's current name, and the model its root slot runs. */
export function comboView(ggConfigs: GgConfigsTable, accountId: string, combo: StoredCombo) {
  if (!combo.ggConfigId) return { ...combo, ggConfigName: null };
  const config = ggConfigs.get(accountId, combo.ggConfigId.replace(SAVED, '$1'));
  const slots = { ...(config?.slotModels ?? {}), ...combo.ggSlotModels };
  return { ...combo, model: ggRootModel(slots) ?? '', ggConfigName: config?.name ?? null };
}

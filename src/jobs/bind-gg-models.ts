import { badRequest } from '../errors.js';

/** The root agent's name; an older set's `primary` slot is the root. */
const ROOT = 'root';
const agentName = (name: string) => (name === 'primary' ? ROOT : name);

interface DeclaredAgent {
  name: string;
  modelId: string | null;
}

/**
 * The agents a capability set declares with the model each binds itself: the current form
 * `{ agents: [{ name, modelId, capabilities }] }`, or the older `{ slots: [{ slot, modelId }] }`
 * whose `primary` slot is the root. Null when the set declares neither, or an empty list.
 */
function declaredAgents(capabilitySet: Record<string, unknown>): DeclaredAgent[] | null {
  const list = Array.isArray(capabilitySet.agents) ? capabilitySet.agents : Array.isArray(capabilitySet.slots) ? capabilitySet.slots : null;
  if (!list) return null;
  const key = Array.isArray(capabilitySet.agents) ? 'agents' : 'slots';
  const nameField = key === 'agents' ? 'name' : 'slot';
  // An empty list binds nothing: the set is bound by slotModels alone, like one without agents.
  if (list.length === 0) return null;
  const agents = list.map((entry: unknown, index) => {
    const fields = (entry ?? {}) as Record<string, unknown>;
    const name = fields[nameField];
    if (typeof name !== 'string' || name.trim() === '') {
      throw badRequest(`capabilitySet.${key}[${index}].${nameField} must be a non-empty string.`);
    }
    const modelId = typeof fields.modelId === 'string' && fields.modelId.trim() !== '' ? fields.modelId : null;
    return { name: agentName(name), modelId };
  });
  const names = agents.map((agent) => agent.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw badRequest(`capabilitySet.${key} names the agent "${twice}" twice.`);
  return agents;
}

/**
 * The model of every agent a gg launch runs, by agent name: the set's own bindings, each
 * replaced by `slotModels` of the same name when given. Refuses (400) a set that leaves an
 * agent without a model, and an override naming no agent of the set. A set that declares no
 * agents is bound by `slotModels` alone, which must then bind at least one unless the
 * launch names its model itself (`POST /jobs`: `listedModel`).
 */
export function bindGgModels(
  capabilitySet: Record<string, unknown>,
  slotModels: Record<string, string> = {},
  { listedModel = false } = {},
): Record<string, string> {
  const overrides = Object.fromEntries(Object.entries(slotModels).map(([name, model]) => [agentName(name), model]));
  const agents = declaredAgents(capabilitySet);
  if (!agents) {
    if (Object.keys(overrides).length === 0 && !listedModel) {
      throw badRequest('slotModels must bind a model to at least one launch slot (the root agent runs on it), or the capabilitySet must declare agents with their modelId.');
    }
    return overrides;
  }
  const names = agents.map((agent) => agent.name);
  const stray = Object.keys(overrides).find((name) => !names.includes(name));
  if (stray !== undefined) throw badRequest(`slotModels names "${stray}", which is no agent of the capability set (${names.join(', ')}).`);
  const bound: Record<string, string> = {};
  for (const agent of agents) {
    const model = overrides[agent.name] ?? agent.modelId;
    if (!model) throw badRequest(`capabilitySet agent "${agent.name}" has no model: give it a modelId or bind it in slotModels.`);
    bound[agent.name] = model;
  }
  return bound;
}

/** The model a gg run is listed under: the root agent's, else the first agent's in name order; null when none is bound. */
export function ggRootModel(bound: Record<string, string>): string | null {
  const first = Object.keys(bound).sort()[0];
  return bound[ROOT] ?? (first === undefined ? null : bound[first]!);
}

/**
 * The bound models as one canonical string, `agent=model` in agent-name order joined by `,`:
 * what a job records (`jobs.gg_models`) and what a gg cell is matched on, so two bindings of
 * one configuration are two cells. Migration 0087 writes the same string for older jobs.
 */
export const boundModelKey = (bound: Record<string, string>): string =>
  Object.keys(bound).sort().map((name) => `${name}=${bound[name]}`).join(',');

import { badRequest } from '../errors.js';

/** The root agent's name; an older set's `primary` slot is the root. */
const ROOT = 'root';
const agentName = (name: string) => (name === 'primary' ? ROOT : name);

interface DeclaredAgent {
  name: string;
  modelId: string | null;
}

/** A set's agent list, in the current `agents` form or the older `slots` form, and where each entry names itself. */
function agentList(capabilitySet: Record<string, unknown>) {
  if (Array.isArray(capabilitySet.agents)) return { list: capabilitySet.agents as unknown[], key: 'agents', nameField: 'name' } as const;
  if (Array.isArray(capabilitySet.slots)) return { list: capabilitySet.slots as unknown[], key: 'slots', nameField: 'slot' } as const;
  return null;
}

/**
 * The agents a capability set declares with the model each binds itself: the current form
 * `{ agents: [{ name, modelId, capabilities }] }`, or the older `{ slots: [{ slot, modelId }] }`
 * whose `primary` slot is the root. Null when the set declares neither, or an empty list.
 */
function declaredAgents(capabilitySet: Record<string, unknown>): DeclaredAgent[] | null {
  const declared = agentList(capabilitySet);
  // An empty list binds nothing: the set is bound by slotModels alone, like one without agents.
  if (!declared || declared.list.length === 0) return null;
  const { list, key, nameField } = declared;
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
 * what a job and a gg run record (`jobs.gg_models`, `runs.gg_models`) and what a gg cell is
 * matched on, so two bindings of one configuration are two cells. Migrations 0087 and 0090
 * write the same string for older jobs and runs.
 */
export const boundModelKey = (bound: Record<string, string>): string =>
  Object.keys(bound).sort().map((name) => `${name}=${bound[name]}`).join(',');

/**
 * The bound models a run record's capability set carries (`subject.ggCapabilitySet`), as
 * `boundModelKey` writes them: every agent that names a model, in either set form. Null when
 * the record carries no set or no agent with a model. Never refuses: a record is stored as
 * it came. Migration 0090 lifts stored runs with the same rule in SQL.
 */
export function recordedGgModels(capabilitySet: unknown): string | null {
  if (typeof capabilitySet !== 'object' || capabilitySet === null) return null;
  const declared = agentList(capabilitySet as Record<string, unknown>);
  if (!declared) return null;
  const bound: Record<string, string> = {};
  for (const entry of declared.list) {
    const fields = (entry ?? {}) as Record<string, unknown>;
    const name = fields[declared.nameField];
    if (typeof name === 'string' && name !== '' && typeof fields.modelId === 'string' && fields.modelId.trim() !== '') {
      bound[agentName(name)] = fields.modelId;
    }
  }
  return Object.keys(bound).length === 0 ? null : boundModelKey(bound);
}

import { bindGgModels } from '../jobs/bind-gg-models.js';
import type { KeyedTable } from './write-keyed.js';
import { UNATTRIBUTED } from './map-reviews.js';
import { parseJson, text, utcColumn } from './source-values.js';

/**
 * `gg_config` → `gg_configs` (§2.2.8), keyed by the kept id: the capability set verbatim,
 * no slot overrides (the original's agents carry their own `modelId`), created when last
 * updated. A set that binds no model is imported and noted (a launch of it is refused here
 * as it would be there). No home: `description`, `agent_sources_json`.
 */
export function ggConfigsTable(): KeyedTable {
  return {
    source: 'gg_config',
    sourceKey: ['id'],
    target: 'gg_configs',
    targetKey: 'id',
    digest: ['id', 'account_id', 'name', 'slot_models', 'created_at', 'updated_at'],
    verbatim: ['id', 'capability_set'],
    map(row) {
      const id = text(row.id)!;
      const set = parseJson(row.capability_set_json);
      if (typeof set !== 'object' || set === null || Array.isArray(set)) return { id, refused: 'capability_set_json is not a JSON object' };
      let note: string | undefined;
      try {
        bindGgModels(set as Record<string, unknown>, {});
      } catch (error) {
        note = `gg_config ${id}: imported, but it cannot be launched here as it stands: ${(error as Error).message}`;
      }
      const updatedAt = utcColumn(row.updated_at);
      const accountId = text(row.user_id) ?? UNATTRIBUTED;
      return {
        id,
        values: { id, account_id: accountId, name: text(row.name) ?? '', capability_set: text(row.capability_set_json), slot_models: '{}', created_at: updatedAt, updated_at: updatedAt },
        ...(note ? { note } : {}),
      };
    },
  };
}

import { camelCaseKeys } from './camel-case-keys.js';
import type { ResolvedVersion, SpecEntry } from './resolved-version.js';
import type { FieldReader } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

/**
 * The schema files a `[contract]` may name, in seed order: an adversarial case's per-tick
 * `world` observation and `action` schemas, a performance case's `input` and `output`.
 */
const SCHEMA_KEYS = ['world', 'action', 'input', 'output'] as const;

/**
 * `[contract] entry, world?, action?, input?, output?`: the submission contract of an
 * adversarial or performance case. `entry` (the exported function the harness calls) is
 * required; each schema path must exist. Served whole, camelCased.
 */
export async function readContract(manifest: FieldReader, folder: VersionFolder): Promise<Record<string, unknown> | null> {
  const table = manifest.optionalTable('contract');
  if (!table) return null;
  table.string('entry');
  const paths: Record<string, string> = {};
  for (const key of SCHEMA_KEYS) {
    const raw = table.optionalString(key);
    if (raw === undefined) continue;
    paths[key] = folder.key(raw, table, key);
    await folder.requireFile(paths[key], table, key);
  }
  manifest.passThrough('contract');
  return { ...(camelCaseKeys(table.table) as Record<string, unknown>), ...paths };
}

/** The contract's schema files as seeded specs: copied to the same workspace-relative path. */
export function contractSpecs(record: ResolvedVersion): SpecEntry[] {
  const contract = record.contract;
  if (!contract) return [];
  return SCHEMA_KEYS.flatMap((key) => {
    const path = contract[key];
    return typeof path === 'string' ? [{ source: path, dest: path, template: false, kind: 'schema' }] : [];
  });
}

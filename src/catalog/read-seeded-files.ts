import type { AssetEntry, EngineSupport, SpecEntry, WorkspaceFiles, WorkspaceSource } from './resolved-version.js';
import { NO_ENGINE } from './known-engines.js';
import { walkVersionFiles } from './walk-version-files.js';
import type { FieldReader } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

const TEMPLATE_SUFFIX = '.hbs';

/**
 * `[[spec]] source, dest?, kind?` (or `spec = [...]` in a variant file). `dest` defaults to
 * `source` without a trailing `.hbs`; a `.hbs` source is a template.
 */
export async function readSpecs(reader: FieldReader, folder: VersionFolder): Promise<SpecEntry[]> {
  const entries = reader.stringsOrTables('spec', 'source');
  return Promise.all(
    entries.map(async (entry) => {
      const source = folder.key(entry.string('source'), entry, 'source');
      await folder.requireFile(source, entry, 'source');
      const template = source.endsWith(TEMPLATE_SUFFIX);
      const rawDest = entry.optionalString('dest');
      const dest = rawDest === undefined
        ? (template ? source.slice(0, -TEMPLATE_SUFFIX.length) : source)
        : folder.key(rawDest, entry, 'dest');
      return { source, dest, template, kind: entry.optionalString('kind') ?? 'spec' };
    }),
  );
}

/** `assets = ["assets/bear", { source, dest }]`: files or whole folders, seeded at `dest`. */
export async function readAssets(manifest: FieldReader, folder: VersionFolder): Promise<AssetEntry[]> {
  const entries = manifest.stringsOrTables('assets', 'source');
  return Promise.all(
    entries.map(async (entry) => {
      const source = folder.key(entry.string('source'), entry, 'source');
      await folder.requireEntry(source, entry, 'source');
      const rawDest = entry.optionalString('dest');
      return { source, dest: rawDest === undefined ? source : folder.key(rawDest, entry, 'dest') };
    }),
  );
}

/**
 * `workspace = "dir"` (every engine) or a `[workspaces]` table keyed by engine. The table
 * must cover exactly the engines the case supports: a missing engine would leave its runs
 * without a starter project, an extra one is a typo.
 * Returns null when the file declares neither, so a variant can inherit the case's.
 */
export async function readWorkspaces(
  reader: FieldReader,
  folder: VersionFolder,
  engines: EngineSupport[],
): Promise<WorkspaceSource[] | null> {
  const single = reader.optionalString('workspace');
  const perEngine = reader.optionalTable('workspaces');
  if (single !== undefined && perEngine) throw reader.fail('declare either "workspace" or [workspaces], not both');
  if (single !== undefined) {
    const source = folder.key(single, reader, 'workspace');
    await folder.requireDir(source, reader, 'workspace');
    return [{ engine: null, source }];
  }
  if (!perEngine) return null;
  const supported = new Set(engines.map((engine) => engine.slug));
  const declared = perEngine.keys();
  for (const engine of declared) {
    if (!supported.has(engine)) throw perEngine.fail(`names engine "${engine}", which the case does not support`);
  }
  for (const engine of supported) {
    if (!declared.includes(engine)) throw perEngine.fail(`has no workspace for supported engine "${engine}"`);
  }
  return Promise.all(
    declared.map(async (engine) => {
      const source = folder.key(perEngine.string(engine), perEngine, engine);
      await folder.requireDir(source, perEngine, engine);
      return { engine, source };
    }),
  );
}

/**
 * The starter files of `sources`, keyed by engine slug (an engine-less `workspace = "…"`
 * is keyed `none`): each file's store-relative `source` and its `dest` inside the run's
 * workspace. `{}` when there are none.
 */
export async function workspaceFiles(sources: WorkspaceSource[] | null, folder: VersionFolder): Promise<WorkspaceFiles> {
  const keyed: WorkspaceFiles = {};
  for (const { engine, source } of sources ?? []) {
    const files = await walkVersionFiles(folder.absolute(source), folder.checkoutRoot);
    keyed[engine ?? NO_ENGINE] = files.map((file) => ({ source: `${source}/${file.key}`, dest: file.key }));
  }
  return keyed;
}

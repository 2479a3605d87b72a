import { contractSpecs } from './read-contract.js';
import type { ReadVersionResult } from './read-version.js';

/** The folder of a version whose files the reporter-side validators read; served whole. */
export const VALIDATION_DIR = 'validation';

/**
 * What `…/artifacts/{path}` may serve of a stored version: what its resolved record points
 * at, and nothing else of the folder (`showcase.toml`, mockup sources, a reference
 * implementation kept beside the case). `files` are exact keys, `folders` serve everything
 * below them.
 */
export interface ServedArtifacts {
  files: string[];
  folders: string[];
}

/** The prompt template, seeded specs and schema files, assets, workspaces, validation files and showcase media. */
export function servedArtifacts(read: ReadVersionResult): ServedArtifacts {
  const { record } = read;
  const files = new Set<string>([read.promptKey]);
  const folders = new Set<string>([VALIDATION_DIR]);
  const specs = [...record.commonSpecs, ...contractSpecs(record), ...record.variants.flatMap((variant) => variant.specs)];
  for (const spec of specs) files.add(spec.source);
  // An asset is a file or a whole folder; the store cannot tell which from the key alone.
  for (const asset of record.assets) {
    files.add(asset.source);
    folders.add(asset.source);
  }
  for (const workspace of [...record.workspaces, ...record.variants.flatMap((variant) => variant.workspaces ?? [])]) folders.add(workspace.source);
  for (const variant of record.variants) {
    const dir = read.showcaseDirs[variant.slug];
    for (const media of variant.showcase?.media ?? []) if (dir !== undefined) files.add(`${dir}/${media.file}`);
  }
  return { files: [...files].sort(), folders: [...folders].sort() };
}

export function isServedArtifact(served: ServedArtifacts | undefined, key: string): boolean {
  if (!served) return false;
  return served.files.includes(key) || served.folders.some((folder) => key.startsWith(`${folder}/`));
}

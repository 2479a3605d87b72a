import type { FoundVersion } from './scan-checkout.js';

export interface Selection {
  /** In scan order, each version once. */
  selected: FoundVersion[];
  /** Selectors that matched nothing, as given, for the ingest report. */
  unknown: string[];
}

/**
 * Applies ingest selectors (`testCases: ["carom", "coil@v1.0.0"]`): a bare id selects every
 * version of the case, `id@version` exactly one. An id matches the manifest slug or the case
 * folder's name, since authors know a case by its folder and the store by its slug.
 */
export function selectVersions(found: readonly FoundVersion[], selectors: readonly string[]): Selection {
  const chosen = new Set<FoundVersion>();
  const unknown: string[] = [];
  for (const selector of selectors) {
    const at = selector.lastIndexOf('@');
    const id = at === -1 ? selector : selector.slice(0, at);
    const version = at === -1 ? undefined : selector.slice(at + 1);
    const matches = found.filter(
      (candidate) => (candidate.slug === id || candidate.folderName === id) && (version === undefined || candidate.version === version),
    );
    if (matches.length === 0) unknown.push(selector);
    for (const match of matches) chosen.add(match);
  }
  return { selected: found.filter((candidate) => chosen.has(candidate)), unknown };
}

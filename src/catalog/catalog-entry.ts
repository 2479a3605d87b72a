import { compareVersions } from './compare-versions.js';
import type { ResolvedVersion, ShowcaseMedia } from './resolved-version.js';

/** One item of `GET /test-cases`. */
export interface CatalogEntry {
  slug: string;
  /** Visible versions, oldest first. */
  versions: string[];
  name: string;
  testType: string;
  assetKind: string | null;
  difficulty: string;
  tags: string[];
  summary: string;
  showcase: { version: string; variant: string; media: ShowcaseMedia[] } | null;
}

/**
 * Builds a case's catalog entry from its stored versions. Experimental versions are hidden
 * unless the deployment offers them; display fields come from the latest visible version,
 * and so does the showcase: its first variant, in manifest order, that declares one.
 * Returns null when no version is visible, so the case is left out of the listing.
 */
export function buildCatalogEntry(
  versions: readonly ResolvedVersion[],
  options: { includeExperimental: boolean },
): CatalogEntry | null {
  const visible = versions
    .filter((version) => options.includeExperimental || !version.experimental)
    .sort((a, b) => compareVersions(a.version, b.version));
  const latest = visible.at(-1);
  if (!latest) return null;
  const showcased = latest.variants.find((variant) => variant.showcase !== null);
  return {
    slug: latest.slug,
    versions: visible.map((version) => version.version),
    name: latest.name,
    testType: latest.testType,
    assetKind: latest.assetKind,
    difficulty: latest.difficulty,
    tags: latest.tags,
    summary: latest.summary,
    showcase: showcased?.showcase
      ? { version: latest.version, variant: showcased.slug, media: showcased.showcase.media }
      : null,
  };
}

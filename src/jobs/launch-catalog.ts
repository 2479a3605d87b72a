import { isOutage } from '../errors.js';
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { RESOLVED_RECORD_FORMAT } from '../catalog/record-format.js';
import type { StoredVersions } from '../catalog/stored-versions.js';

/** What enqueue needs to know about an ingested test case version. */
export interface LaunchableVersion {
  /** Engine slugs the version declares (`none` is always launchable). */
  engines: string[];
  /** Variant slugs the version declares. */
  variants: string[];
  testType: string;
  /** The version's run time limit; a launch may set its own. */
  maxRuntimeSeconds: number;
}

/** The catalog as the run queue sees it. */
export interface LaunchCatalog {
  /**
   * Null when the version was never ingested, its stored record is in a format this build
   * cannot read, or it is experimental and the deployment does not offer those: exactly the
   * versions a runner could not resolve.
   */
  version(slug: string, version: string): Promise<LaunchableVersion | null>;
  caseExists(slug: string): Promise<boolean>;
}

/**
 * Reads what ingest stored, through the index and the stored versions (which cache each
 * parsed `resolved.json` and, on the `s3` blob driver, fetch a copy this machine lacks). A
 * copy that cannot be read (missing from the bucket, unparsable) answers null; a store that
 * cannot answer now (the bucket unreachable: 503 `blob_store_unavailable`) throws, so a
 * launch or top-up answers 503 and marks nothing unlaunchable.
 */
export function storedLaunchCatalog(index: CatalogIndex, versions: StoredVersions, options: { includeExperimental: boolean }): LaunchCatalog {
  return {
    async version(slug, version) {
      const indexed = await index.get(slug, version);
      if (!indexed) return null;
      let stored;
      try {
        ({ stored } = await versions.load(indexed));
      } catch (error) {
        // The bucket down is an outage (503), not a version that was never ingested.
        if (isOutage(error)) throw error;
        return null;
      }
      if (stored.recordFormat !== RESOLVED_RECORD_FORMAT) return null;
      const { resolved } = stored;
      if (resolved.experimental && !options.includeExperimental) return null;
      return {
        engines: resolved.engines.map((engine) => engine.slug),
        variants: resolved.variants.map((variant) => variant.slug),
        testType: resolved.testType,
        maxRuntimeSeconds: resolved.maxRuntimeSeconds,
      };
    },
    caseExists: async (slug) => (await index.versionsOf(slug)).length > 0,
  };
}

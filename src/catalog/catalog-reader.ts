import { realpath } from 'node:fs/promises';
import { relative } from 'node:path';
import { buildCatalogEntry, type CatalogEntry } from './catalog-entry.js';
import type { CatalogIndex, IndexedVersion } from './catalog-index.js';
import { compareVersions } from './compare-versions.js';
import { storeLayout } from './definition-store.js';
import { renderVariantPrompt, renderVariantSpecs, type RenderedSpec } from './render-templates.js';
import type { ResolvedVersion } from './resolved-version.js';
import { resolveInside } from './safe-store-path.js';
import { storedReferencePath, storedShowcasePath } from './stored-media-path.js';
import type { LoadedVersion, StoredVersions } from './stored-versions.js';
import { isServedArtifact } from './served-artifacts.js';
import { listValidationFiles } from './validation-files.js';
import { toPosix } from './version-folder.js';
import { isOutage, notFound } from '../errors.js';

const BASELINE_DIR = 'validation-baseline';
const BASELINE_MEDIA = /^[A-Za-z0-9._-]+__[A-Za-z0-9._-]+\.[A-Za-z0-9]+$/;
const SHARED_IMAGE = /^img\.[A-Za-z0-9_-]+\.[A-Za-z0-9]+$/;
const RENDERED_CACHE_LIMIT = 256;

/** A version whose copy cannot be read is absent; a store that cannot answer now (503) is passed on, never shown as absent. */
const absentUnlessOutage = (error: unknown): null => {
  if (isOutage(error)) throw error;
  return null;
};

/**
 * What the resolution routes answer, read from the definition store. Experimental versions
 * are invisible (absent from lists, 404 on resolution) unless the deployment offers them.
 */
export function catalogReader(index: CatalogIndex, versions: StoredVersions, options: { includeExperimental: boolean }) {
  // Rendering every variant's prompt is the costly part of a resolution; store dirs are immutable.
  const rendered = new Map<string, ResolvedVersion>();

  const visible = (experimental: boolean) => options.includeExperimental || !experimental;

  async function visibleVersion(slug: string, version: string): Promise<LoadedVersion> {
    const loaded = await versions.get(slug, version).catch(absentUnlessOutage);
    if (!loaded || !visible(loaded.indexed.experimental)) throw notFound(`Test case ${slug} has no ingested version ${version}.`);
    return loaded;
  }

  function requireVariant(loaded: LoadedVersion, variant: string) {
    if (!loaded.stored.resolved.variants.some((candidate) => candidate.slug === variant)) {
      throw notFound(`Test case ${loaded.stored.slug} ${loaded.stored.version} has no variant ${variant}.`);
    }
  }

  return {
    async catalog(): Promise<CatalogEntry[]> {
      // One read of the index, grouped by case (it answers them ordered by slug).
      const bySlug = new Map<string, IndexedVersion[]>();
      for (const version of await index.all()) bySlug.set(version.slug, [...(bySlug.get(version.slug) ?? []), version]);
      const entries = await Promise.all([...bySlug.values()].map(async (ofSlug) => {
        const shown = ofSlug.filter((version) => visible(version.experimental)).sort((a, b) => compareVersions(a.version, b.version));
        const latest = shown.at(-1);
        if (!latest) return null;
        // A case whose latest manifest cannot be read is left out rather than shown stale.
        const latestLoaded = await versions.load(latest).catch(absentUnlessOutage);
        if (!latestLoaded) return null;
        const loaded = await versions.loadReadable(ofSlug);
        return buildCatalogEntry(loaded.map((version) => version.stored.resolved), options);
      }));
      return entries.filter((entry): entry is CatalogEntry => entry !== null);
    },

    async versionsOf(slug: string): Promise<{ slug: string; versions: string[] }> {
      const shown = (await index.versionsOf(slug)).filter((version) => visible(version.experimental));
      if (shown.length === 0) throw notFound(`No test case ${slug}.`);
      return { slug, versions: shown.map((version) => version.version).sort(compareVersions) };
    },

    /** The resolved version with every variant's prompt rendered for `engine` (absent: `none`). */
    async resolved(slug: string, version: string, engine?: string): Promise<ResolvedVersion> {
      const loaded = await visibleVersion(slug, version);
      const key = `${loaded.dir}\0${engine ?? 'none'}`;
      const cached = rendered.get(key);
      if (cached) return cached;
      const record = loaded.stored.resolved;
      const result = { ...record, variants: record.variants.map((variant) => ({ ...variant, prompt: renderVariantPrompt(record, variant.slug, engine) })) };
      if (rendered.size >= RENDERED_CACHE_LIMIT) rendered.delete(rendered.keys().next().value!);
      rendered.set(key, result);
      return result;
    },

    /** A variant's seeded spec set, each body rendered for it and `engine`, with what names it. */
    async specs(slug: string, version: string, variant: string, engine?: string) {
      const loaded = await visibleVersion(slug, version);
      requireVariant(loaded, variant);
      const record = loaded.stored.resolved;
      const specs: RenderedSpec[] = await renderVariantSpecs(record, loaded.sourceDir, variant, engine);
      const description = record.variants.find((candidate) => candidate.slug === variant)!.description;
      return { slug: record.slug, version: record.version, variant, description, specs };
    },

    /** A file the resolved version points at (see servedArtifacts); anything else of the folder is 404. */
    async artifactPath(slug: string, version: string, key: string): Promise<string> {
      const loaded = await visibleVersion(slug, version);
      const path = await resolveInside(loaded.sourceDir, key);
      const servedKey = toPosix(relative(await realpath(loaded.sourceDir), path));
      if (!isServedArtifact(loaded.stored.artifacts, servedKey)) throw notFound(`No artifact "${key.slice(0, 200)}" in this version.`);
      return path;
    },

    async referencePath(slug: string, version: string, scope: string, file: string): Promise<string> {
      const loaded = await visibleVersion(slug, version);
      return storedReferencePath(loaded.dir, loaded.stored, scope, file);
    },

    async validationFiles(slug: string, version: string): Promise<string[]> {
      return listValidationFiles((await visibleVersion(slug, version)).sourceDir);
    },

    /** `<item>__<output>.<ext>` under `validation-baseline/<engine>/<variant>/`, or a shared `img.<id>.<ext>` under `validation-baseline/images/`. */
    async baselinePath(slug: string, version: string, engine: string, variant: string, file: string): Promise<string> {
      const loaded = await visibleVersion(slug, version);
      requireVariant(loaded, variant);
      if (!loaded.stored.resolved.engines.some((candidate) => candidate.slug === engine)) {
        throw notFound(`Test case ${slug} ${version} has no reference build for engine ${engine}.`);
      }
      const sourceDir = storeLayout(loaded.dir).sourceDir;
      if (SHARED_IMAGE.test(file)) return resolveInside(sourceDir, `${BASELINE_DIR}/images/${file}`, { fromUrl: false });
      if (BASELINE_MEDIA.test(file)) return resolveInside(sourceDir, `${BASELINE_DIR}/${engine}/${variant}/${file}`, { fromUrl: false });
      throw notFound(`No baseline media "${file}" in ${slug} ${version}.`);
    },

    async showcasePath(slug: string, version: string, variant: string, file: string): Promise<string> {
      const loaded = await visibleVersion(slug, version);
      return storedShowcasePath(loaded.dir, loaded.stored, variant, file);
    },

    groups: () => index.groups(),
  };
}

export type CatalogReader = ReturnType<typeof catalogReader>;

import { basename } from 'node:path';
import {
  DEFAULT_ASSET_KIND, DEFAULT_MAX_RUNTIME_HOURS, DEFAULT_TEST_TYPE, SLUG_PATTERN, TEST_TYPES, VERSION_PATTERN,
} from './catalog-vocabulary.js';
import { camelCaseKeys } from './camel-case-keys.js';
import { checkTemplatesRender } from './check-templates-render.js';
import { checkVersionLinks } from './check-version-links.js';
import { passThroughBlocks } from './pass-through-blocks.js';
import { readEngines } from './read-engines.js';
import { readErrata } from './read-errata.js';
import { readChecks, readProofs, readReferences, readViewport, type ReferenceToRender, type StaticReference, COMMON_SCOPE } from './read-references.js';
import { gradeJamChecklist, readChecklist, readDomains } from './read-review-items.js';
import { readAssets, readSpecs, readWorkspaces } from './read-seeded-files.js';
import { readVariant, readVariantTable, type ReadVariantResult, type VariantContext } from './read-variant.js';
import { renderVariantPrompt } from './render-templates.js';
import type { ResolvedVersion, ReviewItem } from './resolved-version.js';
import { FieldReader, readTomlFile } from './toml-fields.js';
import { VersionFolder } from './version-folder.js';

export const TEST_CASE_MANIFEST = 'test-case.toml';
export const GAME_JAM_MANIFEST = 'game-jam.toml';

const ROOT_KEYS = new Set([
  'slug', 'name', 'difficulty', 'tags', 'type', 'asset_kind', 'summary', 'description', 'changelog', 'prompt',
  'max_runtime_hours', 'max_runtime_seconds', 'experimental', 'workspace', 'workspaces', 'init', 'assets',
  'packages', 'engines', 'variants', 'engine', 'build', 'spec', 'reference', 'check', 'domain', 'review_item',
  'review', 'proof', 'viewport',
]);

/** Everything ingest needs from one version folder. */
export interface ReadVersionResult {
  record: ResolvedVersion;
  /** HTML mockups to render to PNG into the store. */
  referencesToRender: ReferenceToRender[];
  /** Image and video references to copy into the store. */
  staticReferences: StaticReference[];
  /** Variant slug → store-relative folder of its showcase media. */
  showcaseDirs: Record<string, string>;
  /** Checkout-relative path of the manifest, for messages. */
  manifestFile: string;
}

/**
 * Reads one version folder (`test-case.toml` or `game-jam.toml`) into the resolved record
 * the contract serves. Every path the manifest names must exist; every template must
 * render for every variant and engine. Problems throw CatalogFileError naming the file.
 */
export async function readVersion(checkoutRoot: string, dir: string): Promise<ReadVersionResult> {
  const folder = new VersionFolder(checkoutRoot, dir);
  const isJam = !(await folder.exists(TEST_CASE_MANIFEST)) && (await folder.exists(GAME_JAM_MANIFEST));
  const manifestKey = isJam ? GAME_JAM_MANIFEST : TEST_CASE_MANIFEST;
  const manifest = await readTomlFile(folder.absolute(manifestKey), folder.fileName(manifestKey));

  const slug = manifest.string('slug');
  if (!SLUG_PATTERN.test(slug)) throw manifest.fail(`"slug" must be lower-case letters, digits and "-", got "${slug}"`);
  const version = basename(dir);
  if (!VERSION_PATTERN.test(version)) throw manifest.fail(`version folder "${version}" is not named v<major>.<minor>...`);
  const blocks = passThroughBlocks(manifest, ROOT_KEYS, RECORD_FIELDS);

  const engines = readEngines(manifest);
  const promptKey = folder.key(manifest.string('prompt'), manifest, 'prompt');
  const viewport = readViewport(manifest, 'viewport') ?? stageViewport(manifest);
  const commonReferences = await readReferences(manifest, folder, { slug, version, scope: COMMON_SCOPE, viewport });
  const domains = readDomains(manifest);
  const variantContext: VariantContext = { slug, version, engines, commonDomainIds: new Set(domains.map((domain) => domain.id)), viewport };
  const variants = await readVariants(manifest, folder, variantContext, isJam);

  const record: ResolvedVersion = {
    slug,
    version,
    name: manifest.string('name'),
    difficulty: manifest.optionalString('difficulty') ?? '',
    summary: manifest.optionalString('summary') ?? '',
    testType: readTestType(manifest, isJam),
    assetKind: manifest.optionalString('asset_kind') ?? DEFAULT_ASSET_KIND,
    tags: manifest.stringArray('tags'),
    description: await readInlinedText(manifest, folder, 'description'),
    changelog: await readInlinedText(manifest, folder, 'changelog'),
    experimental: manifest.boolean('experimental', false),
    maxRuntimeSeconds: readMaxRuntimeSeconds(manifest),
    engines,
    build: readBuild(manifest),
    init: manifest.optionalString('init') ?? null,
    workspaces: (await readWorkspaces(manifest, folder, engines)) ?? [],
    packages: readPackages(manifest),
    promptTemplate: await folder.readText(promptKey, manifest, 'prompt'),
    commonSpecs: await readSpecs(manifest, folder),
    assets: await readAssets(manifest, folder),
    variants: variants.map(({ variant }) => variant),
    engineFormat: false,
    domains,
    commonReferences: commonReferences.entries,
    commonProofs: readProofs(manifest, folder),
    checks: readChecks(manifest),
    commonReviewItems: await readChecklist(manifest, { folder, engines, domainIds: variantContext.commonDomainIds }),
    errata: await readErrata(folder, new Set(variants.map(({ variant }) => variant.slug))),
    ...blocks,
  };
  applyEngineFormat(record, manifest);
  if (isJam) gradeJamChecklist(record, manifest);
  checkVersionLinks(record, manifest.file);
  await checkTemplatesRender(record, folder, promptKey, manifest);
  for (const variant of record.variants) variant.prompt = renderVariantPrompt(record, variant.slug);

  return {
    record,
    referencesToRender: [...commonReferences.toRender, ...variants.flatMap(({ references }) => references.toRender)],
    staticReferences: [...commonReferences.staticMedia, ...variants.flatMap(({ references }) => references.staticMedia)],
    showcaseDirs: Object.fromEntries(variants.filter(({ showcaseDir }) => showcaseDir).map(({ variant, showcaseDir }) => [variant.slug, showcaseDir!])),
    manifestFile: manifest.file,
  };
}

// Keys of the record a pass-through block must not overwrite.
const RECORD_FIELDS = new Set([
  'slug', 'version', 'name', 'difficulty', 'summary', 'testType', 'assetKind', 'tags', 'description', 'changelog',
  'experimental', 'maxRuntimeSeconds', 'engines', 'build', 'init', 'workspaces', 'packages', 'promptTemplate',
  'commonSpecs', 'assets', 'variants', 'engineFormat', 'domains', 'commonReferences', 'commonProofs', 'checks',
  'commonReviewItems', 'errata',
]);

async function readVariants(manifest: FieldReader, folder: VersionFolder, context: VariantContext, isJam: boolean): Promise<ReadVariantResult[]> {
  const paths = manifest.stringArray('variants');
  if (paths.length === 0) {
    if (!isJam) throw manifest.fail('"variants" must list at least one variant file');
    // A jam is one theme: it runs one implicit variant.
    return [await readVariantTable(new FieldReader(manifest.file, { slug: 'base', name: 'Base' }, 'implicit variant'), folder, context)];
  }
  const results: ReadVariantResult[] = [];
  const slugs = new Set<string>();
  for (const raw of paths) {
    const path = folder.key(raw, manifest, 'variants');
    await folder.requireFile(path, manifest, 'variants');
    const result = await readVariant(path, folder, context);
    if (slugs.has(result.variant.slug)) throw manifest.fail(`two variant files declare slug "${result.variant.slug}"`);
    slugs.add(result.variant.slug);
    results.push(result);
  }
  return results;
}

function readTestType(manifest: FieldReader, isJam: boolean): string {
  const declared = manifest.optionalString('type');
  if (isJam) {
    if (declared !== undefined && declared !== 'game-jam') throw manifest.fail(`a game jam's "type" can only be "game-jam", got "${declared}"`);
    return 'game-jam';
  }
  const type = declared ?? DEFAULT_TEST_TYPE;
  if (!(TEST_TYPES as readonly string[]).includes(type)) throw manifest.fail(`"type" must be one of ${TEST_TYPES.join(', ')}, got "${type}"`);
  return type;
}

/** `max_runtime_hours` (fractional, default 1) or, in very old manifests, `max_runtime_seconds`. */
function readMaxRuntimeSeconds(manifest: FieldReader): number {
  const hours = manifest.optionalNumber('max_runtime_hours');
  const seconds = manifest.optionalNumber('max_runtime_seconds');
  if (hours !== undefined && seconds !== undefined) throw manifest.fail('declare "max_runtime_hours" or "max_runtime_seconds", not both');
  if (seconds !== undefined) {
    if (!Number.isInteger(seconds) || seconds <= 0) throw manifest.fail('"max_runtime_seconds" must be a positive whole number');
    return seconds;
  }
  const value = hours ?? DEFAULT_MAX_RUNTIME_HOURS;
  if (value <= 0) throw manifest.fail('"max_runtime_hours" must be a positive number');
  return Math.round(value * 3600);
}

function readBuild(manifest: FieldReader): ResolvedVersion['build'] {
  const build = manifest.optionalTable('build');
  return build ? { install: build.string('install'), build: build.string('build') } : null;
}

function readPackages(manifest: FieldReader): unknown[] {
  const value = manifest.table['packages'];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw manifest.fail('"packages" must be an array');
  return camelCaseKeys(value) as unknown[];
}

async function readInlinedText(manifest: FieldReader, folder: VersionFolder, field: string): Promise<string> {
  const raw = manifest.optionalString(field);
  return raw === undefined ? '' : folder.readText(folder.key(raw, manifest, field), manifest, field);
}

/** A `[stage]` block that states its size also sets the mockups' viewport. */
function stageViewport(manifest: FieldReader) {
  const stage = manifest.optionalTable('stage');
  return stage?.has('width') && stage.has('height') ? readViewport(manifest, 'stage') : null;
}

/**
 * Engine format: `[review] format = 2` and every graded item, common and per variant,
 * declares `failure_cap` and `domains`. Only then do items keep those two fields.
 */
function applyEngineFormat(record: ResolvedVersion, manifest: FieldReader): void {
  const items: ReviewItem[] = [...record.commonReviewItems, ...record.variants.flatMap((variant) => variant.reviewItems)];
  const format = manifest.optionalTable('review')?.optionalNumber('format');
  record.engineFormat = format === 2 && items.length > 0
    && items.every((item) => item.failureCap !== undefined && item.domains !== undefined && item.domains.length > 0);
  if (record.engineFormat) return;
  for (const item of items) {
    delete item.domains;
    delete item.failureCap;
  }
}

import { basename } from 'node:path';
import {
  ASSET_TEST_TYPE, DEFAULT_ASSET_KIND, DEFAULT_MAX_RUNTIME_HOURS, DEFAULT_TEST_TYPE, SLUG_PATTERN, TEST_TYPES, VERSION_PATTERN,
} from './catalog-vocabulary.js';
import { camelCaseKeys } from './camel-case-keys.js';
import { checkTemplatesRender } from './check-templates-render.js';
import { checkVersionLinks } from './check-version-links.js';
import { passThroughBlocks } from './pass-through-blocks.js';
import { readEngines } from './read-engines.js';
import { readErrata } from './read-errata.js';
import { readChecks, readProofs, readReferences, readViewport, type ReferenceToRender, type StaticReference, COMMON_SCOPE } from './read-references.js';
import { gradeJamChecklist, readChecklist, readDomains } from './read-review-items.js';
import { readAssets, readSpecs, readWorkspaces, workspaceFiles } from './read-seeded-files.js';
import { readVariant, readVariantTable, type ReadVariantResult, type VariantContext } from './read-variant.js';
import { renderVariantPrompt } from './render-templates.js';
import { RECORD_FIELDS, type ResolvedVersion, type ReviewItem } from './resolved-version.js';
import { FieldReader, isTable, readTomlFile, type KeyWarning } from './toml-fields.js';
import { readContract } from './read-contract.js';
import { VersionFolder } from './version-folder.js';

export const TEST_CASE_MANIFEST = 'test-case.toml';
export const GAME_JAM_MANIFEST = 'game-jam.toml';

const ROOT_KEYS = new Set([
  'slug', 'name', 'difficulty', 'tags', 'type', 'asset_kind', 'summary', 'description', 'changelog', 'prompt',
  'max_runtime_hours', 'max_runtime_seconds', 'experimental', 'workspace', 'workspaces', 'init', 'assets',
  'packages', 'engines', 'variants', 'engine', 'build', 'spec', 'reference', 'check', 'domain', 'review_item',
  'review', 'proof', 'viewport', 'contract',
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
  /** Version-folder key of the prompt template. */
  promptKey: string;
  /** Keys of the manifest and variant files the format does not define, which were ignored. */
  warnings: KeyWarning[];
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
  checkRootKeysPlacement(manifest);
  const blocks = passThroughBlocks(manifest, ROOT_KEYS, RECORD_FIELDS);

  const engines = readEngines(manifest);
  const promptKey = folder.key(manifest.string('prompt'), manifest, 'prompt');
  const viewport = readViewport(manifest, 'viewport') ?? stageViewport(manifest);
  const commonReferences = await readReferences(manifest, folder, { slug, version, scope: COMMON_SCOPE, viewport });
  const domains = readDomains(manifest);
  const variantContext: VariantContext = { slug, version, engines, commonDomainIds: new Set(domains.map((domain) => domain.id)), viewport, blocks };
  const variants = await readVariants(manifest, folder, variantContext, isJam);

  const testType = readTestType(manifest, isJam);
  const workspaces = (await readWorkspaces(manifest, folder, engines)) ?? [];
  const contract = await readContract(manifest, folder);
  const errata = await readErrata(folder, new Set(variants.map(({ variant }) => variant.slug)));
  const record: ResolvedVersion = {
    slug,
    version,
    name: manifest.string('name'),
    difficulty: manifest.optionalString('difficulty') ?? '',
    summary: manifest.optionalString('summary') ?? '',
    testType,
    assetKind: manifest.optionalString('asset_kind') ?? (testType === ASSET_TEST_TYPE ? DEFAULT_ASSET_KIND : null),
    tags: manifest.stringArray('tags'),
    description: await readInlinedText(manifest, folder, 'description'),
    changelog: await readInlinedText(manifest, folder, 'changelog'),
    experimental: manifest.boolean('experimental', false),
    maxRuntimeSeconds: readMaxRuntimeSeconds(manifest),
    engines,
    build: readBuild(manifest),
    init: manifest.optionalString('init') ?? null,
    workspaces,
    workspace: await workspaceFiles(workspaces, folder),
    packages: readPackages(manifest),
    promptTemplate: await folder.readText(promptKey, manifest, 'prompt'),
    commonSpecs: await readSpecs(manifest, folder),
    ...(contract ? { contract } : {}),
    assets: await readAssets(manifest, folder),
    variants: variants.map(({ variant }) => variant),
    engineFormat: false,
    domains,
    commonReferences: commonReferences.entries,
    commonProofs: readProofs(manifest, folder),
    checks: readChecks(manifest),
    commonReviewItems: await readChecklist(manifest, { folder, engines, domainIds: variantContext.commonDomainIds }),
    errata: errata.errata,
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
    promptKey,
    warnings: [...manifest.warnings(), ...variants.flatMap((variant) => variant.warnings), ...errata.warnings],
  };
}

/**
 * Root keys no table of the format has. Written below a `[table]` header, TOML reads them as
 * keys of that table (`max_runtime_hours` under `[build]` is `build.max_runtime_hours`), and
 * the version would silently serve the default: refuse it, naming the table.
 */
const ROOT_ONLY_KEYS = new Set([
  'difficulty', 'tags', 'asset_kind', 'summary', 'changelog', 'max_runtime_hours', 'max_runtime_seconds',
  'experimental', 'init', 'packages', 'engines', 'variants',
]);

function checkRootKeysPlacement(manifest: FieldReader): void {
  const visit = (value: unknown, path: string, header: string): void => {
    if (Array.isArray(value)) {
      for (const item of value) if (isTable(item)) visit(item, path, `[[${path}]]`);
      return;
    }
    if (!isTable(value)) return;
    for (const [key, inner] of Object.entries(value)) {
      if (ROOT_ONLY_KEYS.has(key)) {
        throw manifest.fail(`"${key}" is a root key but sits in table ${header}: TOML reads every key after a table header as part of that table; move it above the first table header`);
      }
      visit(inner, `${path}.${key}`, Array.isArray(inner) ? `[[${path}.${key}]]` : `[${path}.${key}]`);
    }
  };
  for (const [key, value] of Object.entries(manifest.table)) {
    if (isTable(value) || Array.isArray(value)) visit(value, key, Array.isArray(value) ? `[[${key}]]` : `[${key}]`);
  }
}

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

/** `[build] install, build` (both required); served whole, so keys a runner may know (`module`, ...) are kept. */
function readBuild(manifest: FieldReader): ResolvedVersion['build'] {
  const build = manifest.optionalTable('build');
  if (!build) return null;
  build.string('install');
  build.string('build');
  manifest.passThrough('build');
  return camelCaseKeys(build.table) as ResolvedVersion['build'];
}

function readPackages(manifest: FieldReader): unknown[] {
  const value = manifest.raw('packages');
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

import { passThroughBlocks } from './pass-through-blocks.js';
import { readChecklist, readDomains } from './read-review-items.js';
import { readProofs, readReferences, type ReadReferences, type Viewport } from './read-references.js';
import { readSpecs, readWorkspaces, workspaceFiles } from './read-seeded-files.js';
import { readShowcase } from './read-showcase.js';
import { VARIANT_FIELDS, type EngineSupport, type ResolvedVariant } from './resolved-version.js';
import { SLUG_PATTERN } from './catalog-vocabulary.js';
import { isTable, readTomlFile, type FieldReader, type KeyWarning } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

const VARIANT_KEYS = new Set([
  'slug', 'name', 'description', 'workspace', 'workspaces', 'spec', 'reference', 'proof',
  'review_item', 'review', 'domain', 'showcase', 'reference_implementation',
]);

export interface VariantContext {
  slug: string;
  version: string;
  engines: EngineSupport[];
  commonDomainIds: ReadonlySet<string>;
  viewport: Viewport | null;
  /** The version's per-kind blocks: a variant's own table overrides them key by key. */
  blocks: Record<string, unknown>;
}

export interface ReadVariantResult {
  /** The variant; its prompt stays empty until the whole version is read and it can render. */
  variant: ResolvedVariant;
  references: ReadReferences;
  showcaseDir: string | null;
  /** Keys of the variant file the format does not define, which were ignored. */
  warnings: KeyWarning[];
}

/** One `variants/<slug>.toml`, listed in the manifest's `variants`. */
export async function readVariant(path: string, folder: VersionFolder, context: VariantContext): Promise<ReadVariantResult> {
  const file = await readTomlFile(folder.absolute(path), folder.fileName(path));
  return readVariantTable(file, folder, context);
}

export async function readVariantTable(file: FieldReader, folder: VersionFolder, context: VariantContext): Promise<ReadVariantResult> {
  const blocks = passThroughBlocks(file, VARIANT_KEYS, VARIANT_FIELDS);
  for (const [name, own] of Object.entries(blocks)) {
    const inherited = context.blocks[name];
    if (isTable(inherited) && isTable(own)) blocks[name] = { ...inherited, ...own };
  }
  const slug = file.string('slug');
  if (!SLUG_PATTERN.test(slug)) throw file.fail(`"slug" must be lower-case letters, digits and "-", got "${slug}"`);
  const domains = readDomains(file);
  const domainIds = new Set([...context.commonDomainIds, ...domains.map((domain) => domain.id)]);
  await checkReferenceImplementation(file, folder, context.engines);
  const references = await readReferences(file, folder, { slug: context.slug, version: context.version, scope: slug, viewport: context.viewport });
  const showcase = await readShowcase(file, folder, slug);
  const workspaces = await readWorkspaces(file, folder, context.engines);
  return {
    variant: {
      slug,
      name: file.optionalString('name') ?? slug,
      description: file.optionalString('description') ?? null,
      prompt: '',
      specs: await readSpecs(file, folder),
      references: references.entries,
      proofs: readProofs(file, folder),
      reviewItems: await readChecklist(file, { folder, engines: context.engines, domainIds }),
      domains,
      workspaces,
      workspace: await workspaceFiles(workspaces, folder),
      showcase: showcase?.showcase ?? null,
      ...blocks,
    },
    references,
    showcaseDir: showcase?.dir ?? null,
    warnings: [...file.warnings(), ...(showcase?.warnings ?? [])],
  };
}

/**
 * `reference_implementation`: the authored correct build, never seeded or served, but a
 * path that does not exist is still a broken manifest. The per-engine table must name
 * exactly the engines the case supports.
 */
async function checkReferenceImplementation(file: FieldReader, folder: VersionFolder, engines: EngineSupport[]): Promise<void> {
  if (typeof file.raw('reference_implementation') === 'string') {
    const dir = folder.key(file.string('reference_implementation'), file, 'reference_implementation');
    await folder.requireDir(dir, file, 'reference_implementation');
    return;
  }
  const table = file.optionalTable('reference_implementation');
  if (!table) return;
  const supported = engines.map((engine) => engine.slug);
  for (const engine of table.keys()) {
    if (!supported.includes(engine)) throw table.fail(`names engine "${engine}", which the case does not support`);
  }
  for (const engine of supported) {
    if (!table.has(engine)) throw table.fail(`has no reference implementation for supported engine "${engine}"`);
    await folder.requireDir(folder.key(table.string(engine), table, engine), table, engine);
  }
}

import { readFile } from 'node:fs/promises';
import Handlebars from 'handlebars';
import { badRequest } from '../errors.js';
import { CatalogFileError } from './catalog-file-error.js';
import { KNOWN_ENGINES, NO_ENGINE, unknownEngine } from './known-engines.js';
import { contractSpecs } from './read-contract.js';
import { RECORD_FIELDS, VARIANT_FIELDS, type ResolvedVariant, type ResolvedVersion, type SpecEntry } from './resolved-version.js';
import { resolveInside } from './safe-store-path.js';

/** The run workspace inside the container; templates receive it as `workspace`. */
export const WORKSPACE_DIR = '/work';

export interface EngineContext {
  slug: string;
  name: string;
  /** Where the engine's own documentation is seeded in the run; null for `none`. */
  docs: string | null;
}

export interface RenderedSpec extends SpecEntry {
  /** The seeded text: a template rendered for the variant and engine, else the file as is. */
  body: string;
}

type Template = (context: object) => string;

// Compiling a large prompt costs milliseconds; routes render the same few templates again
// and again with `?engine=`, so keep the most recent ones.
const MAX_CACHED_TEMPLATES = 64;
const cache = new Map<string, Template>();
let instance: typeof Handlebars | undefined;

function handlebars(): typeof Handlebars {
  if (!instance) {
    instance = Handlebars.create();
    instance.registerHelper('eq', (left: unknown, right: unknown) => left === right);
    // Keep HELPERS below in step with what is registered here.
  }
  return instance;
}

/**
 * Renders one template in strict mode (an unknown variable is an error) without HTML
 * escaping (prompts and specs are plain text). Errors name `file`.
 */
export function renderTemplate(source: string, context: object, file: string): string {
  try {
    let template = cache.get(source);
    if (!template) {
      template = handlebars().compile(source, { strict: true, noEscape: true });
      if (cache.size >= MAX_CACHED_TEMPLATES) cache.delete(cache.keys().next().value!);
      cache.set(source, template);
    }
    return template(context);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new CatalogFileError(file, `template error: ${describeTemplateError(source, message)}`, { cause });
  }
}

const HELPERS = ['eq'];
const NOT_DEFINED = /^"([^"]+)" not defined in .* - (\d+):(\d+)$/;

/**
 * Handlebars says `"uppercase" not defined in [object Object] - 3:63` both for a helper it
 * does not have and for a variable the context lacks, at a column near the name. Find the
 * name in the source, tell the two apart (a name called with arguments, or opening a block,
 * is a helper) and give the 1-based line and column of the name.
 */
function describeTemplateError(source: string, message: string): string {
  const match = NOT_DEFINED.exec(message.split('\n')[0]!);
  if (!match) return message.split('\n')[0]!;
  const [, name, lineNumber, reported] = match;
  const line = source.split(/\r?\n/)[Number(lineNumber) - 1] ?? '';
  const token = /[^\s{}()]/;
  let start = Math.min(Number(reported), line.length);
  while (start > 0 && token.test(line[start - 1]!)) start--;
  let end = start;
  while (end < line.length && token.test(line[end]!)) end++;
  const found = line.slice(start, end);
  const path = found.split('.').includes(name!) ? found : name!;
  const where = `line ${lineNumber}, column ${start + 1}`;
  const opener = /(?:\{\{\{?[~#^]?|\()\s*$/.exec(line.slice(0, start))?.[0] ?? '';
  const called = /^\s+[^\s}]/.test(line.slice(end)) || opener.includes('#');
  if (path === name && opener !== '' && called) {
    return `unknown helper "${name}" at ${where} (the helpers templates may use: ${HELPERS.join(', ')})`;
  }
  return `"${path}" is not defined at ${where}`;
}

/**
 * The engine a request names: absent means `none`. An engine this deployment does not
 * know, or one the version does not support, is the caller's mistake (400).
 */
export function engineFor(record: ResolvedVersion, slug: string | undefined): EngineContext {
  const chosen = slug ?? NO_ENGINE;
  const known = KNOWN_ENGINES.get(chosen);
  if (!known) throw unknownEngine(chosen);
  if (!record.engines.some((engine) => engine.slug === chosen)) {
    throw badRequest(`Test case ${record.slug} ${record.version} does not support engine "${chosen}".`);
  }
  return { slug: chosen, name: known.name, docs: chosen === NO_ENGINE ? null : `${WORKSPACE_DIR}/engine` };
}

export function variantOf(record: ResolvedVersion, slug: string): ResolvedVariant {
  const variant = record.variants.find((candidate) => candidate.slug === slug);
  if (!variant) throw badRequest(`Test case ${record.slug} ${record.version} has no variant "${slug}".`);
  return variant;
}

/** A variant's seeded specs in seed order: the common specs, the contract's schema files, then the variant's own. */
export function seededSpecs(record: ResolvedVersion, variant: ResolvedVariant): SpecEntry[] {
  return [...record.commonSpecs, ...contractSpecs(record), ...variant.specs];
}

/**
 * The per-kind tables (`canvas`, `voxel`, `tool`, `output`, `model`, `sheet`, ...) a
 * variant's templates see: the version's, with the variant's own overriding them (already
 * merged key by key at ingest). Keys are offered as authored (`sample_pack`) and camelCased
 * (`samplePack`). A `voxel` table also offers `maxX`, `maxY`, `maxZ`: the last voxel index
 * on each axis (width, height, depth − 1).
 */
export function typeTables(record: ResolvedVersion, variant: ResolvedVariant): Record<string, unknown> {
  const tables: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) if (!RECORD_FIELDS.has(name)) tables[name] = value;
  for (const [name, value] of Object.entries(variant)) if (!VARIANT_FIELDS.has(name)) tables[name] = value;
  const context: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(tables)) {
    const table = withAuthoredKeys(value);
    if (name === 'voxel' && typeof table === 'object' && table !== null && !Array.isArray(table)) Object.assign(table, voxelExtents(table as Record<string, unknown>));
    context[name] = table;
    context[snakeCase(name)] ??= table;
  }
  return context;
}

function voxelExtents(voxel: Record<string, unknown>): Record<string, number> {
  const derived: Record<string, number> = {};
  for (const [extent, max] of [['width', 'maxX'], ['height', 'maxY'], ['depth', 'maxZ']] as const) {
    const value = voxel[extent];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) derived[max] = value - 1;
  }
  return derived;
}

/** A copy offering each camelCased key under its authored snake_case spelling too. */
function withAuthoredKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withAuthoredKeys);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] = withAuthoredKeys(inner);
    copy[snakeCase(key)] ??= copy[key];
  }
  return copy;
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

function variantContext(variant: ResolvedVariant) {
  return { slug: variant.slug, name: variant.name, description: variant.description };
}

/** The context a prompt template sees. */
export function promptContext(record: ResolvedVersion, variant: ResolvedVariant, engine: EngineContext): object {
  // Per-kind tables first: the built-in names below always mean what the format says.
  const context: Record<string, unknown> = {
    ...typeTables(record, variant),
    workspace: WORKSPACE_DIR,
    variant: variantContext(variant),
    specs: seededSpecs(record, variant).map((spec) => ({
      dest: spec.dest,
      path: `${WORKSPACE_DIR}/${spec.dest}`,
      name: fileStem(spec.dest),
    })),
    engine,
  };
  // A jam's prompt states its time budget; no other test type has one to state.
  if (record.testType === 'game-jam') context['time_limit_hours'] = record.maxRuntimeSeconds / 3600;
  return context;
}

/** The context a `.hbs` spec sees. */
export function specContext(record: ResolvedVersion, variant: ResolvedVariant, engine: EngineContext): object {
  return { ...typeTables(record, variant), version: record.version, variant: variantContext(variant), engine };
}

/** A variant's prompt, as a run on `engine` (default `none`) receives it. */
export function renderVariantPrompt(record: ResolvedVersion, variantSlug: string, engine?: string): string {
  const variant = variantOf(record, variantSlug);
  return renderTemplate(record.promptTemplate, promptContext(record, variant, engineFor(record, engine)), `prompt of ${record.slug} ${record.version}`);
}

/**
 * A variant's full seeded spec set for `engine`, read from the stored copy of the version
 * folder (`sourceDir`), in seed order.
 */
export async function renderVariantSpecs(
  record: ResolvedVersion,
  sourceDir: string,
  variantSlug: string,
  engine?: string,
): Promise<RenderedSpec[]> {
  const variant = variantOf(record, variantSlug);
  const context = specContext(record, variant, engineFor(record, engine));
  return Promise.all(
    seededSpecs(record, variant).map(async (spec) => {
      const text = await readFile(await resolveInside(sourceDir, spec.source, { fromUrl: false }), 'utf8');
      return { ...spec, body: spec.template ? renderTemplate(text, context, spec.source) : text };
    }),
  );
}

/** `specs/overview.md` → `overview`: the last name without its last extension. */
function fileStem(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

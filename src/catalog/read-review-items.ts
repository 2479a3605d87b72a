import { FUNCTIONAL_TIERS } from './catalog-vocabulary.js';
import type { Domain, EngineSupport, MediaKind, ResolvedVersion, ReviewItem, ValidationScript } from './resolved-version.js';
import type { FieldReader } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

const OUTPUT_KINDS: ReadonlySet<string> = new Set<MediaKind>(['image', 'video', 'replay']);

/** `[[domain]] id, name?, description`. */
export function readDomains(reader: FieldReader): Domain[] {
  return reader.tables('domain').map((entry) => {
    const id = entry.string('id');
    return { id, name: entry.optionalString('name') ?? id, description: entry.string('description') };
  });
}

export interface ChecklistContext {
  folder: VersionFolder;
  engines: EngineSupport[];
  /** Domains an item of this file may name: the case's, plus the variant's own. */
  domainIds: ReadonlySet<string>;
}

/**
 * Reads both checklist grammars of one manifest or variant file: legacy `[[review_item]]`
 * and `[[review.categories]]` with their `items`. Category items keep any `domains` and
 * `failure_cap` they declare; the caller strips them unless the version is engine-format.
 */
export async function readChecklist(reader: FieldReader, context: ChecklistContext): Promise<ReviewItem[]> {
  const items: ReviewItem[] = [];
  for (const entry of reader.tables('review_item')) items.push(await readLegacyItem(entry, context));
  const review = reader.optionalTable('review');
  for (const category of review?.tables('categories') ?? []) {
    const categoryId = category.string('id');
    const categoryRef = { id: categoryId, title: category.optionalString('title') ?? categoryId };
    for (const entry of category.tables('items')) items.push(await readCategoryItem(entry, categoryRef, context));
  }
  const ids = new Set<string>();
  for (const id of items.flatMap(verdictIdsOf)) {
    if (ids.has(id)) throw reader.fail(`review verdict id "${id}" is declared twice`);
    ids.add(id);
  }
  return items;
}

/**
 * The verdict id of a game jam reviewer's whole-game mark, given on the same graded scale
 * as the categories. It is reserved, so no jam item may use it, and it earns no points.
 */
export const OVERALL_VERDICT_ID = 'overall';

// What a jam with no checklist of its own is reviewed on (the fixture jam's manifest names
// these seven). Worded for the reviewer; ids are the verdict ids a review sends.
const GENERIC_JAM_CATEGORIES: ReadonlyArray<[id: string, title: string, text: string]> = [
  ['playability', 'Playability', 'The game loads, controls respond, and it can be played from start to an end or a loop.'],
  ['fun', 'Fun', 'Playing it is enjoyable: there is a goal, some challenge and a reason to keep going.'],
  ['theme', 'Theme', "The jam's theme shapes the game's design, not just its title."],
  ['presentation', 'Presentation', 'Art, layout and effects read clearly and hang together.'],
  ['audio', 'Audio', 'Music and sound effects are present and support the play.'],
  ['polish', 'Polish', 'Few rough edges: menus, restarts, feedback and edge cases are handled.'],
  ['creativity', 'Creativity', 'The idea or its execution brings something of its own.'],
];

/**
 * A game jam is graded, not pass/fail: every item it declares is marked `graded`, and a jam
 * that declares none gets the generic categories. Graded points and validators never mix,
 * so a jam is never engine-format. Sub items (pass/fail points) and an item named like the
 * overall mark are refused.
 */
export function gradeJamChecklist(record: ResolvedVersion, manifest: FieldReader): void {
  const variantItems = record.variants.flatMap((variant) => variant.reviewItems);
  if (record.commonReviewItems.length === 0 && variantItems.length === 0) {
    record.commonReviewItems = GENERIC_JAM_CATEGORIES.map(([id, title, text]) => ({ id, title, text, weight: 1, subItems: [] }));
  }
  record.engineFormat = false;
  for (const item of [...record.commonReviewItems, ...variantItems]) {
    if (item.subItems.length > 0) throw manifest.fail(`game jam review item "${item.id}" cannot have sub_items: a jam grades each item as a whole`);
    if (item.id === OVERALL_VERDICT_ID) throw manifest.fail(`review item id "${OVERALL_VERDICT_ID}" is reserved for the reviewer's whole-game grade`);
    item.graded = true;
    delete item.domains;
    delete item.failureCap;
  }
}

/** The ids a reviewer records a verdict under: an item's sub items, else the item itself. */
export function verdictIdsOf(item: ReviewItem): string[] {
  return item.subItems.length > 0 ? item.subItems.map((sub) => sub.id) : [item.id];
}

async function readLegacyItem(entry: FieldReader, context: ChecklistContext): Promise<ReviewItem> {
  const id = entry.string('id');
  const weight = readWeight(entry);
  const subs = entry.stringsOrTables('sub_items', 'id');
  const domain = entry.optionalString('domain') ?? null;
  if (domain !== null && !context.domainIds.has(domain)) throw entry.fail(`"domain" names undeclared domain "${domain}"`);
  return {
    id,
    title: entry.string('title'),
    text: entry.string('text'),
    weight,
    // A sub item is graded on its own; the item's weight splits evenly across them.
    subItems: subs.map((sub) => {
      const subId = sub.string('id');
      return { id: `${id}.${subId}`, title: sub.optionalString('title') ?? subId, weight: weight / subs.length };
    }),
    domain,
    reference: entry.optionalString('reference') ?? null,
    proof: entry.optionalString('proof') ?? null,
    validation: await readValidation(entry, context),
  };
}

async function readCategoryItem(
  entry: FieldReader,
  category: { id: string; title: string },
  context: ChecklistContext,
): Promise<ReviewItem> {
  const itemId = entry.string('id');
  const item: ReviewItem = {
    id: `${category.id}.${itemId}`,
    title: entry.string('title'),
    text: entry.optionalString('description') ?? '',
    weight: readWeight(entry),
    subItems: [],
    category,
    validation: await readValidation(entry, context),
  };
  if (entry.has('domains')) {
    const domains = entry.stringArray('domains');
    for (const domain of domains) {
      if (!context.domainIds.has(domain)) throw entry.fail(`"domains" names undeclared domain "${domain}"`);
    }
    item.domains = domains;
  }
  const cap = entry.optionalString('failure_cap');
  if (cap !== undefined) {
    if (!(FUNCTIONAL_TIERS as readonly string[]).includes(cap)) {
      throw entry.fail(`"failure_cap" must be one of ${FUNCTIONAL_TIERS.join(', ')}, got "${cap}"`);
    }
    item.failureCap = cap;
  }
  return item;
}

function readWeight(entry: FieldReader): number {
  const weight = entry.optionalNumber('weight') ?? 1;
  if (!Number.isInteger(weight) || weight < 0) throw entry.fail('"weight" must be a whole number of points');
  return weight;
}

/**
 * `validation = { script, outputs }`. The script is relative to the `validation/` folder a
 * run stages; a case supporting several engines ships one such folder per engine
 * (`validation/<engine>/`), so the script must exist in each of them, or once directly
 * under `validation/`.
 */
async function readValidation(entry: FieldReader, context: ChecklistContext): Promise<ValidationScript | null> {
  const table = entry.optionalTable('validation');
  if (!table) return null;
  const script = context.folder.key(table.string('script'), table, 'script');
  if (!(await context.folder.exists(`validation/${script}`))) {
    for (const engine of context.engines) {
      await context.folder.requireFile(`validation/${engine.slug}/${script}`, table, 'script');
    }
  }
  const outputs = table.tables('outputs').map((output) => {
    const kind = output.string('kind');
    if (!OUTPUT_KINDS.has(kind)) throw output.fail(`"kind" must be image, video or replay, got "${kind}"`);
    const id = output.string('id');
    return { id, name: output.optionalString('name') ?? id, kind: kind as MediaKind };
  });
  return { script, outputs };
}


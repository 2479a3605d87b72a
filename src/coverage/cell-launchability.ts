/**
 * What can be said about a cell without launching it (shared by plans and ladders): why a
 * top-up could not launch it (un-ingested version, undeclared engine or variant, a gone gg
 * configuration, a model the catalog does not hold), and the newest ingested version of its
 * case. A pin naming any of these is accepted at save and reported here.
 */
import type { CatalogIndex } from '../catalog/catalog-index.js';
import { compareVersions } from '../catalog/compare-versions.js';
import { NO_ENGINE } from '../catalog/known-engines.js';
import type { LaunchCatalog } from '../jobs/launch-catalog.js';
import { refuseUncatalogued } from '../models/list-price-from-router.js';
import type { CoverageCell, Pin } from './coverage-cells.js';

export interface LaunchabilityDeps {
  catalog: LaunchCatalog;
  index: Pick<CatalogIndex, 'all'>;
  /** The models the catalog holds a curated entry for (what a launch needs first). */
  curatedSlugs(): Promise<string[]>;
}

/**
 * One reader per request, for the cells it will be asked about: the store is read once as it
 * is built (the ingested versions, the curated models and what each distinct pin's version
 * declares), and answers are cached, since a matrix asks about each pin and model many times.
 */
export async function cellLaunchability(deps: LaunchabilityDeps, cells: Iterable<CoverageCell>) {
  const models = new Map<string, string | null>();
  const [indexed, curatedSlugs] = await Promise.all([deps.index.all(), deps.curatedSlugs()]);
  const curated = new Set(curatedSlugs);
  const latest = new Map<string, string>();
  for (const { slug, version } of indexed) {
    const newest = latest.get(slug);
    if (newest === undefined || compareVersions(version, newest) > 0) latest.set(slug, version);
  }
  const distinct = new Map<string, Pin>();
  for (const { pin } of cells) distinct.set(pinKey(pin), pin);
  const pins = new Map(await Promise.all([...distinct].map(async ([key, pin]) => [key, await pinProblem(deps.catalog, pin)] as const)));

  function modelProblem(modelId: string): string | null {
    if (!models.has(modelId)) models.set(modelId, curated.has(modelId) ? null : refuseUncatalogued(modelId).reason);
    return models.get(modelId)!;
  }

  return {
    /** Why the cell cannot be launched, or null. The launch itself may still be refused (a price the provider does not list). */
    unlaunchable(cell: CoverageCell): string | null {
      const { combination } = cell;
      const pinned = pins.get(pinKey(cell.pin));
      if (pinned === undefined) throw new Error(`cell launchability was not built for ${pinKey(cell.pin)}`);
      const problem = pinned ?? combination.unlaunchable;
      if (problem) return problem;
      const bound = combination.gg ? [...new Set([combination.model, ...Object.values(combination.gg.slotModels)])] : [combination.model];
      for (const model of bound) {
        const refused = modelProblem(model);
        if (refused) return refused;
      }
      return null;
    },
    /** The newest ingested version of a case; empty when none is. */
    latestVersion(slug: string): string {
      return latest.get(slug) ?? '';
    },
  };
}

export type CellLaunchability = Awaited<ReturnType<typeof cellLaunchability>>;

const pinKey = (pin: Pin) => `${pin.slug}|${pin.version}|${pin.variant}|${pin.engine}`;

async function pinProblem(catalog: LaunchCatalog, pin: Pin): Promise<string | null> {
  const version = await catalog.version(pin.slug, pin.version);
  if (!version) {
    return (await catalog.caseExists(pin.slug)) ? `Test case ${pin.slug} has no ingested version ${pin.version}.` : `No test case "${pin.slug}" is ingested.`;
  }
  if (pin.engine !== NO_ENGINE && !version.engines.includes(pin.engine)) return `Test case ${pin.slug} ${pin.version} does not declare engine "${pin.engine}".`;
  if (version.variants.length > 0 && !version.variants.includes(pin.variant)) return `Test case ${pin.slug} ${pin.version} has no variant "${pin.variant}".`;
  return null;
}

import { ERRATUM_SEVERITIES } from './catalog-vocabulary.js';
import type { Erratum } from './resolved-version.js';
import { readTomlFile, type KeyWarning } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

const ERRATA_FILE = 'errata.toml';

/**
 * `errata.toml`: `[[erratum]] id, title, date?, severity, affects_scoring?, body,
 * resolved_in?, variant?`. Optional; a version without the file has no errata.
 */
export async function readErrata(folder: VersionFolder, variantSlugs: ReadonlySet<string>): Promise<{ errata: Erratum[]; warnings: KeyWarning[] }> {
  if (!(await folder.exists(ERRATA_FILE))) return { errata: [], warnings: [] };
  const file = await readTomlFile(folder.absolute(ERRATA_FILE), folder.fileName(ERRATA_FILE));
  const ids = new Set<string>();
  const errata = file.tables('erratum').map((entry): Erratum => {
    const id = entry.string('id');
    if (ids.has(id)) throw entry.fail(`erratum "${id}" is declared twice`);
    ids.add(id);
    const severity = entry.optionalString('severity') ?? 'minor';
    if (!(ERRATUM_SEVERITIES as readonly string[]).includes(severity)) {
      throw entry.fail(`"severity" must be one of ${ERRATUM_SEVERITIES.join(', ')}, got "${severity}"`);
    }
    const variant = entry.optionalString('variant') ?? null;
    if (variant !== null && !variantSlugs.has(variant)) throw entry.fail(`"variant" names unknown variant "${variant}"`);
    return {
      id,
      title: entry.string('title'),
      date: readDate(entry.raw('date'), () => entry.fail('"date" must be a TOML date or a string')),
      severity: severity as Erratum['severity'],
      affectsScoring: entry.boolean('affects_scoring', false),
      body: entry.string('body'),
      resolvedIn: entry.optionalString('resolved_in') ?? null,
      variant,
    };
  });
  return { errata, warnings: file.warnings() };
}

// TOML dates arrive as Date objects; smol-toml's toISOString keeps a local date as YYYY-MM-DD.
function readDate(value: unknown, invalid: () => Error): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  throw invalid();
}

import type { EngineSupport } from './resolved-version.js';
import { isKnownEngine, NO_ENGINE } from './known-engines.js';
import type { FieldReader } from './toml-fields.js';

const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;

/**
 * Reads bare `engines` and pinned `[[engine]]` tables. `none` is always supported and comes
 * first; bare entries follow in order, then pins. An engine named twice is an error, since
 * which declaration wins would otherwise be a guess.
 */
export function readEngines(manifest: FieldReader): EngineSupport[] {
  const engines: EngineSupport[] = [{ slug: NO_ENGINE }];
  const seen = new Set<string>([NO_ENGINE]);
  const bare = manifest.stringArray('engines');
  for (const slug of bare) {
    if (!isKnownEngine(slug)) throw manifest.fail(`"engines" names unknown engine "${slug}"`);
    if (slug === NO_ENGINE) continue;
    if (seen.has(slug)) throw manifest.fail(`"engines" names "${slug}" twice`);
    seen.add(slug);
    engines.push({ slug });
  }
  for (const pin of manifest.tables('engine')) {
    const slug = pin.string('slug');
    if (!isKnownEngine(slug)) throw pin.fail(`names unknown engine "${slug}"`);
    if (slug === NO_ENGINE) throw pin.fail(`"${NO_ENGINE}" has no package and cannot be pinned`);
    if (seen.has(slug)) throw pin.fail(`engine "${slug}" is declared more than once`);
    seen.add(slug);
    const minVersion = pin.string('min_version');
    if (!SEMVER.test(minVersion)) throw pin.fail(`"min_version" must be a semantic version, got "${minVersion}"`);
    const maxVersion = pin.optionalString('max_version');
    if (maxVersion !== undefined && !SEMVER.test(maxVersion)) {
      throw pin.fail(`"max_version" must be a semantic version, got "${maxVersion}"`);
    }
    engines.push(maxVersion === undefined ? { slug, minVersion } : { slug, minVersion, maxVersion });
  }
  return engines;
}

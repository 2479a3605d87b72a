import { engineFor, promptContext, renderTemplate, seededSpecs, specContext } from './render-templates.js';
import type { ResolvedVersion } from './resolved-version.js';
import type { FieldReader } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

/**
 * Renders the prompt and every `.hbs` spec for every variant and every engine the version
 * supports, so a template that fails in strict mode fails the ingest, not a runner's
 * request. Errors name the template file.
 */
export async function checkTemplatesRender(
  record: ResolvedVersion,
  folder: VersionFolder,
  promptKey: string,
  manifest: FieldReader,
): Promise<void> {
  const sources = new Map<string, string>();
  for (const variant of record.variants) {
    for (const spec of seededSpecs(record, variant)) {
      if (spec.template && !sources.has(spec.source)) sources.set(spec.source, await folder.readText(spec.source, manifest, 'spec'));
    }
  }
  for (const supported of record.engines) {
    const engine = engineFor(record, supported.slug);
    for (const variant of record.variants) {
      renderTemplate(record.promptTemplate, promptContext(record, variant, engine), folder.fileName(promptKey));
      const context = specContext(record, variant, engine);
      for (const spec of seededSpecs(record, variant)) {
        if (spec.template) renderTemplate(sources.get(spec.source)!, context, folder.fileName(spec.source));
      }
    }
  }
}

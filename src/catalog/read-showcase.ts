import { mediaKindOf } from './media-kind.js';
import type { VariantShowcase } from './resolved-version.js';
import { readTomlFile, type FieldReader, type KeyWarning } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

const SHOWCASE_MANIFEST = 'showcase.toml';
const SHOWCASE_DESCRIPTION = 'showcase.md';

/** A variant's showcase and the folder its media files live in (store-relative). */
export interface ReadShowcase {
  showcase: VariantShowcase;
  dir: string;
  /** Keys of its showcase.toml the format does not define (ignored). */
  warnings: KeyWarning[];
}

/**
 * A variant's showcase: the folder its file names with `showcase = "..."`, or by convention
 * `showcase/<variant>/` when that folder holds a `showcase.toml`. The folder holds
 * `showcase.toml` (`[[media]] file, name`, at least one) and optionally `showcase.md`, the
 * description. Null when the variant has none.
 */
export async function readShowcase(variantFile: FieldReader, folder: VersionFolder, variantSlug: string): Promise<ReadShowcase | null> {
  const declared = variantFile.optionalString('showcase');
  let dir: string;
  if (declared !== undefined) {
    dir = folder.key(declared, variantFile, 'showcase');
    await folder.requireFile(`${dir}/${SHOWCASE_MANIFEST}`, variantFile, 'showcase');
  } else {
    dir = `showcase/${variantSlug}`;
    if (!(await folder.exists(`${dir}/${SHOWCASE_MANIFEST}`))) return null;
  }
  const manifest = await readTomlFile(folder.absolute(`${dir}/${SHOWCASE_MANIFEST}`), folder.fileName(`${dir}/${SHOWCASE_MANIFEST}`));
  const entries = manifest.tables('media');
  if (entries.length === 0) throw manifest.fail('a showcase needs at least one [[media]] entry');
  const files = new Set<string>();
  const media = await Promise.all(
    entries.map(async (entry) => {
      const file = entry.string('file');
      // Media are addressed as `/showcase/<variant>/<file>`: a plain name, no folders.
      if (file.includes('/') || file.includes('\\') || file.startsWith('.') || file === SHOWCASE_MANIFEST) {
        throw entry.fail(`"file" must be a plain file name in the showcase folder, got "${file}"`);
      }
      if (files.has(file)) throw entry.fail(`"${file}" is listed twice`);
      files.add(file);
      const kind = mediaKindOf(file);
      if (!kind) throw entry.fail(`"file" must be an image, a video or a .json.gz replay, got "${file}"`);
      await folder.requireFile(`${dir}/${file}`, entry, 'file');
      return { file, name: entry.string('name'), kind };
    }),
  );
  const description = (await folder.exists(`${dir}/${SHOWCASE_DESCRIPTION}`))
    ? await folder.readText(`${dir}/${SHOWCASE_DESCRIPTION}`, manifest, SHOWCASE_DESCRIPTION)
    : '';
  return { showcase: { description, media }, dir, warnings: manifest.warnings() };
}

import { notFound } from '../errors.js';
import { storeLayout, type StoredVersion } from './definition-store.js';
import { resolveInside } from './safe-store-path.js';

/**
 * `references/{scope}/{file}`: only a file this version rendered or copied for that scope
 * resolves, so the route cannot be used to read anything else from the directory.
 */
export async function storedReferencePath(versionDir: string, stored: StoredVersion, scope: string, file: string): Promise<string> {
  const known = [...stored.referencesToRender, ...stored.staticReferences].some(
    (reference) => reference.scope === scope && reference.outFile === file,
  );
  if (!known) throw notFound(`No reference "${scope}/${file}" in ${stored.slug} ${stored.version}.`);
  return resolveInside(versionDir, `references/${scope}/${file}`, { fromUrl: false });
}

/** `showcase/{variant}/{file}`: only files the variant's stored carousel lists. */
export async function storedShowcasePath(versionDir: string, stored: StoredVersion, variant: string, file: string): Promise<string> {
  const dir = stored.showcaseDirs[variant];
  const listed = stored.resolved.variants.find((candidate) => candidate.slug === variant)?.showcase?.media.some((media) => media.file === file);
  if (dir === undefined || !listed) throw notFound(`No showcase file "${variant}/${file}" in ${stored.slug} ${stored.version}.`);
  return resolveInside(storeLayout(versionDir).sourceDir, `${dir}/${file}`, { fromUrl: false });
}

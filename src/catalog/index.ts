/**
 * The catalog library: read a checkout, resolve versions, render templates, keep the store.
 *
 * An ingest scan calls it in this order (`root` is CATALOG_DIR):
 *   1. `scanCheckout(root)`; for a partial scan, `selectVersions(versions, testCases)`.
 *   2. Per version: `statFingerprint(found.dir, root)`. Equal to the indexed fingerprint,
 *      same record format, not forced: unchanged, skip. Otherwise `contentHash(...)`; equal
 *      to the indexed hash: unchanged (record the new fingerprint in the index), skip.
 *   3. `readVersion(root, found.dir)` — throws CatalogFileError naming the file.
 *   4. `store.stage({ read, sourceDir: found.dir, checkoutRoot: root, contentHash, fingerprint })`,
 *      render each of `staged.renderTargets` to its `outFile`, then `staged.commit()`
 *      (or `staged.discard()` when rendering fails); with a bucket, the commit also sends the
 *      directory there (`DefinitionCopies`) and fails, leaving nothing, when it cannot.
 *   5. Point the index at the committed directory, then `store.removeStaleDirs(slug, version, dir)`.
 *   6. `readGroups(root)`; prune pairs the checkout no longer declares with `store.removeVersion`.
 * Routes load versions through `storedVersions` (which fetches a copy the bucket holds and
 * this machine lacks), read `resolved.json` with `readStoredVersion(dir)` and serve files through
 * `resolveInside`, `storedReferencePath` and `storedShowcasePath`.
 */
export { CatalogFileError } from './catalog-file-error.js';
export { buildCatalogEntry, type CatalogEntry } from './catalog-entry.js';
export { compareVersions } from './compare-versions.js';
export { contentTypeFor } from './content-type-for.js';
export {
  DefinitionStore, readStoredVersion, storeLayout,
  type RenderTarget, type StagedVersion, type StoredVersion, type StoreLayout,
} from './definition-store.js';
export { isKnownEngine, KNOWN_ENGINES, NO_ENGINE } from './known-engines.js';
export { readGroups, type ReadGroupsResult, type TestCaseGroup } from './read-groups.js';
export { COMMON_SCOPE, type ReferenceToRender, type StaticReference, type Viewport } from './read-references.js';
export { verdictIdsOf } from './read-review-items.js';
export { readVersion, type ReadVersionResult } from './read-version.js';
export { RESOLVED_RECORD_FORMAT } from './record-format.js';
export {
  engineFor, renderTemplate, renderVariantPrompt, renderVariantSpecs, seededSpecs, WORKSPACE_DIR,
  type EngineContext, type RenderedSpec,
} from './render-templates.js';
export type * from './resolved-version.js';
export { resolveInside } from './safe-store-path.js';
export { scanCheckout, type FoundVersion, type ScanResult } from './scan-checkout.js';
export { selectVersions, type Selection } from './select-versions.js';
export { storedReferencePath, storedShowcasePath } from './stored-media-path.js';
export { listValidationFiles } from './validation-files.js';
export { contentHash, statFingerprint } from './version-hash.js';

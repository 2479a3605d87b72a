/** The catalog library: read a checkout, resolve versions, render templates, keep the store. */
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

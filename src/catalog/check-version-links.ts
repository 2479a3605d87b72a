import { CatalogFileError } from './catalog-file-error.js';
import { verdictIdsOf } from './read-review-items.js';
import type { ResolvedVersion } from './resolved-version.js';

/**
 * Cross-references between parts of a version that no single table can check: a check's
 * reference view, and a review item's reference view and proof, must be declared somewhere
 * in the version (common or a variant's), or the review UI would pair an item with nothing;
 * and a variant's checklist must not reuse a common verdict id.
 */
export function checkVersionLinks(record: ResolvedVersion, manifestFile: string): void {
  const views = new Set(record.commonReferences.map((reference) => reference.view));
  const proofs = new Set(record.commonProofs.map((proof) => proof.id));
  for (const variant of record.variants) {
    for (const reference of variant.references) views.add(reference.view);
    for (const proof of variant.proofs) proofs.add(proof.id);
  }
  const fail = (reason: string) => new CatalogFileError(manifestFile, reason);
  for (const check of record.checks) {
    if (!views.has(check.referenceView)) throw fail(`check "${check.name}" names reference view "${check.referenceView}", which no reference declares`);
  }
  const items = [...record.commonReviewItems, ...record.variants.flatMap((variant) => variant.reviewItems)];
  for (const item of items) {
    if (item.reference && !views.has(item.reference)) throw fail(`review item "${item.id}" names reference view "${item.reference}", which no reference declares`);
    if (item.proof && !proofs.has(item.proof)) throw fail(`review item "${item.id}" names proof "${item.proof}", which no proof declares`);
  }
  // A run is reviewed against the common checklist plus its variant's: one verdict id per point.
  const common = new Set(record.commonReviewItems.flatMap(verdictIdsOf));
  for (const variant of record.variants) {
    const clash = variant.reviewItems.flatMap(verdictIdsOf).find((id) => common.has(id));
    if (clash) throw fail(`variant "${variant.slug}" repeats the common review verdict id "${clash}"`);
  }
}

/**
 * What keeps a whole-catalog scan from replacing a deployment's catalog by mistake (a machine
 * started without its env file scans the examples beside its code): before anything is
 * changed, a scan from another checkout than the store was ingested from, or one that would
 * prune more than half of the stored versions, is refused unless the request says
 * `replaceCatalog`.
 */
import type { CatalogIndex, VersionId } from './catalog-index.js';
import { checkoutIdentity, describeCheckout, parseCheckoutIdentity, type CheckoutIdentity } from './checkout-identity.js';
import type { StoreMeta } from '../db/store-meta.js';

/** A whole scan refused before it changed anything; `replaceCatalog: true` overrides it. */
export class IngestRefusedError extends Error {
  constructor(message: string) {
    super(`${message} Nothing was changed. If this catalog is meant to replace the stored one, send replaceCatalog: true (eval-backend ingest --replace-catalog).`);
    this.name = 'IngestRefusedError';
  }
}

/**
 * Checks a whole scan of `catalogDir` that would prune `prune`; throws IngestRefusedError
 * unless `replace`. Answers the checkout to record once the scan ends.
 */
export async function guardWholeScan(
  deps: { catalogDir: string; index: CatalogIndex; meta: StoreMeta }, prune: VersionId[], replace: boolean,
): Promise<CheckoutIdentity> {
  const current = await checkoutIdentity(deps.catalogDir);
  if (replace) return current;
  const recorded = parseCheckoutIdentity(await deps.meta.get('catalog_checkout'));
  if (recorded !== null && recorded.key !== current.key) {
    throw new IngestRefusedError(`This store was ingested from the catalog checkout ${describeCheckout(recorded)}, and CATALOG_DIR is another one: ${describeCheckout(current)}.`);
  }
  if (prune.length === 0) return current;
  const kept = await deps.index.referenced(prune);
  const removed = prune.filter((id) => !kept.has(`${id.slug}@${id.version}`)).length;
  const stored = await deps.index.count();
  if (removed * 2 > stored) {
    throw new IngestRefusedError(`The scan of ${describeCheckout(current)} would prune ${removed} of the ${stored} stored versions (more than half).`);
  }
  return current;
}

import { definitionCopies } from '../catalog/definition-copies.js';
import { catalogIndex } from '../catalog/catalog-index.js';
import { definitionStoreRoot } from '../catalog/ingest-deps.js';
import { storedVersions } from '../catalog/stored-versions.js';
import { openBlobStore } from '../blob/open-blob-store.js';
import type { Config } from '../config.js';
import type { BackendStore } from '../db/dialect.js';
import { ggConfigsTable } from '../db/gg-configs-table.js';
import { HttpError } from '../errors.js';
import { checkLaunch, checkShape } from '../jobs/enqueue-runs.js';
import { storedLaunchCatalog } from '../jobs/launch-catalog.js';
import type { SourceDb } from './source-db.js';
import { text } from './source-values.js';

/**
 * Whether a job waiting in the original may be queued again here: null when it may, else
 * why not. `account` is the job's account, `request` its launch request as the original kept it.
 */
export type RequeueCheck = (account: string, request: unknown) => Promise<string | null>;

/**
 * `--requeue-waiting` (design D2): a waiting job is queued again only when its request is a
 * launch body of ours, it passes our launch rules short of model admission (which would ask
 * the routing provider) against the catalog ingested here, and its account is one the auth
 * database imports. Anything else is imported canceled, the failed check named.
 */
export async function requeueCheck(config: Config, store: BackendStore, auth: SourceDb): Promise<{ check: RequeueCheck; close(): void }> {
  const accounts = new Set<string>();
  for await (const page of auth.pages('user', ['id'], 1000)) for (const row of page) accounts.add(text(row.id)!);
  const blobs = openBlobStore(config);
  const index = catalogIndex(store);
  const rules = {
    catalog: storedLaunchCatalog(index, storedVersions(index, definitionCopies(blobs, definitionStoreRoot(config))), { includeExperimental: config.allowExperimental }),
    ggConfigs: ggConfigsTable(store),
  };
  return {
    async check(account, request) {
      if (!accounts.has(account)) return `its account ${account} is not in the auth database imported`;
      try {
        await checkLaunch(rules, account, checkShape(request, 'request'));
        return null;
      } catch (error) {
        if (error instanceof HttpError && error.statusCode < 500) return error.message;
        throw error;
      }
    },
    close: () => blobs.close(),
  };
}

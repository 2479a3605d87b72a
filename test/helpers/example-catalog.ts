import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The project's own example catalog (the default CATALOG_DIR), read in place and never written. */
export const EXAMPLE_CATALOG = resolve(here, '../../examples/catalog');

/**
 * A private copy of the example catalog a test may change; its parent folder is the test's
 * too. Only the given version folders when named (so a test's expectations do not move when
 * the examples grow), else all of it.
 */
export function copyExampleCatalog(versionDirs?: string[]): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'evb-examples-')), 'catalog');
  if (!versionDirs) cpSync(EXAMPLE_CATALOG, dir, { recursive: true });
  for (const relDir of versionDirs ?? []) cpSync(join(EXAMPLE_CATALOG, relDir), join(dir, relDir), { recursive: true });
  return dir;
}

/** Version folders of the example catalog that tests lean on. */
export const BEACON_V1 = 'test-cases/end-to-end/easy/beacon/v1.0.0';
export const BEACON = 'test-cases/end-to-end/easy/beacon/v1.1.0';
export const TUGLINE = 'test-cases/end-to-end/medium/tugline/v1.0.0';
export const REGATTA = 'test-cases/end-to-end/easy/regatta/v1.1.0';
export const CRABBER = 'test-cases/end-to-end/easy/crabber/v2.0.0';
export const LOW_TIDE = 'game-jams/low-tide/v1.0.0';
export const FOGHORN = 'game-jams/foghorn/v1.0.0';

/**
 * The real catalog in the shared contract folder beside this checkout. Only tests whose
 * subject is accepting that catalog unchanged read it; a bare clone has no such folder.
 */
export const SHARED_FIXTURE_CATALOG = resolve(here, '../../../shared/fixtures/catalog');
export const hasSharedFixture = existsSync(join(SHARED_FIXTURE_CATALOG, 'test-cases'));

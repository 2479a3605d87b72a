import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's own example catalog (the default CATALOG_DIR), read in place. */
export const EXAMPLE_CATALOG = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../examples/catalog');

/** A private copy of the example catalog a test may change; its parent folder is the test's too. */
export function copyExampleCatalog(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'evb-examples-')), 'catalog');
  cpSync(EXAMPLE_CATALOG, dir, { recursive: true });
  return dir;
}

export const BEACON_V1 = 'test-cases/end-to-end/easy/beacon/v1.0.0';
export const BEACON = 'test-cases/end-to-end/easy/beacon/v1.1.0';
export const TUGLINE = 'test-cases/end-to-end/medium/tugline/v1.0.0';
export const LOW_TIDE = 'game-jams/low-tide/v1.0.0';

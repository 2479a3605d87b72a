import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shared real catalog, used in place (read-only). */
export const FIXTURE_CATALOG = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/fixtures/catalog');

/** A private copy of the fixture catalog a test may change. */
export function copyFixtureCatalog(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'evb-catalog-')), 'catalog');
  cpSync(FIXTURE_CATALOG, dir, { recursive: true });
  return dir;
}

export const CAROM = 'test-cases/end-to-end/easy/carom/v1.1.0';
export const FLOE = 'test-cases/end-to-end/easy/floe/v3.0.0';
export const COIN_SPIN = 'test-cases/asset-generation/easy/coin-spin/v1.0.0';

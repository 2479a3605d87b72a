import { resolve } from 'node:path';
import { bench, describe } from 'vitest';
import { scanCheckout } from '../../src/catalog/scan-checkout.js';
import { contentHash, statFingerprint } from '../../src/catalog/version-hash.js';

// The part of an unchanged re-ingest this library owns: find every version and compare
// its stat fingerprint with the stored one. The project budget for the whole unchanged
// re-ingest of the fixture catalog is 50 ms.
const FIXTURE = resolve(__dirname, '../../../shared/fixtures/catalog');
const FLOE = resolve(FIXTURE, 'test-cases/end-to-end/easy/floe/v3.0.0');

describe('fixture catalog', () => {
  bench('scan + stat fingerprint of every version', async () => {
    const { versions } = await scanCheckout(FIXTURE);
    for (const found of versions) await statFingerprint(found.dir, FIXTURE);
  });

  bench('content hash of floe (~700 files)', async () => {
    await contentHash(FLOE, FIXTURE);
  });
});

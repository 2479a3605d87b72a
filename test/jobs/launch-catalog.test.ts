import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLayout } from '../../src/catalog/definition-store.js';
import { storedLaunchCatalog } from '../../src/jobs/launch-catalog.js';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
});
afterAll(() => backend.close());

describe('the launch catalog', () => {
  it('reads a version again after a read that failed, instead of refusing it until the cache clears', async () => {
    await seedCatalog(backend.store, backend.dataDir, [{ slug: 'flaky', version: 'v1.0.0', engines: ['godot'] }]);
    const resolved = storeLayout(join(backend.dataDir, 'store', 'flaky', 'v1.0.0')).resolvedJson;
    const { index, versions } = backend.app.catalog;
    const catalog = storedLaunchCatalog(index, versions, { includeExperimental: false });
    // The store copy out of reach for a moment (a read error), then back.
    renameSync(resolved, `${resolved}.away`);
    expect(await catalog.version('flaky', 'v1.0.0')).toBeNull();
    renameSync(`${resolved}.away`, resolved);
    expect(await catalog.version('flaky', 'v1.0.0')).toMatchObject({ engines: ['none', 'godot'], variants: ['base'], maxRuntimeSeconds: 1800 });
  });
});

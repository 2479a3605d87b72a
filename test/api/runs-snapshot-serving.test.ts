import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotServePrefix } from '../../src/snapshot/serve-snapshot.js';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog, publishAndWait, seedRun, waitForSnapshotQueueIdle } from '../helpers/runs-test-helpers.js';
import { FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let base: string;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG, SNAPSHOT_URL: 'http://gallery.example.invalid/public/', ...FILES_UNDER_DATA_DIR });
  await ingestCatalog(backend, ['skiff-race']);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  const { token } = await backend.auth.register('alice');
  await seedRun(backend, runRecord({ id: 'shown', state: 'hung' }));
  await publishAndWait(backend, token, 'shown');
  // The publish queued a refresh of its own; let it finish so it cannot replace the folder
  // after the files below are planted in it.
  await waitForSnapshotQueueIdle(backend);
  await backend.app.inject({ method: 'POST', url: '/snapshot/refresh' });
  // Media a driver uploaded, as the snapshot carries it.
  mkdirSync(join(backend.config.snapshotDir, 'media/shown/showcase'), { recursive: true });
  writeFileSync(join(backend.config.snapshotDir, 'media/shown/showcase/logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(backend.dataDir, 'secret.txt'), 'not public');
  symlinkSync(join(backend.dataDir, 'secret.txt'), join(backend.config.snapshotDir, 'leak.txt'));
});
afterAll(() => backend.close());

describe('the snapshot served at SNAPSHOT_URL\'s path', () => {
  it('serves runs.json and each run\'s page read-only with their content types, to any origin', async () => {
    const index = await fetch(`${base}/public/runs.json`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('application/json');
    expect(index.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await index.json()) as { runs: { id: string }[] }).runs.map((run) => run.id)).toEqual(['shown']);
    expect((await (await fetch(`${base}/public/runs/shown.json`)).json())).toMatchObject({ id: 'shown', published: true, showcase: [] });

    const head = await fetch(`${base}/public/runs.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
  });

  it('serves media sandboxed, so an uploaded SVG cannot script the API origin', async () => {
    const svg = await fetch(`${base}/public/media/shown/showcase/logo.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('content-security-policy')).toContain('sandbox');
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each([
    ['the folder itself (no listing)', '/public/'],
    ['a sub folder', '/public/runs'],
    ['a missing file', '/public/nope.json'],
    ['a dot-dot escape', '/public/%2e%2e/backend.sqlite'],
    ['an encoded separator escape', '/public/runs%2F..%2F..%2Fbackend.sqlite'],
    ['a link out of the folder', '/public/leak.txt'],
  ])('answers 404 for %s', async (_name, url) => {
    const response = await backend.app.inject(url);
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
    expect(response.body).not.toContain('not public');
  });

  it('is read-only: other methods find no route', async () => {
    for (const method of ['PUT', 'POST', 'DELETE'] as const) expect((await backend.app.inject({ method, url: '/public/runs.json', payload: {} })).statusCode).toBe(404);
  });

  it('serves under the URL\'s path only; a root path means the snapshot is hosted elsewhere', () => {
    expect(snapshotServePrefix('https://cdn.example.invalid/')).toBeNull();
    expect(snapshotServePrefix(null)).toBeNull();
    expect(snapshotServePrefix('http://host:8787/public/snap//')).toBe('/public/snap');
  });
});

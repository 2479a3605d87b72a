import { cpSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMeta } from '../../src/db/store-meta.js';
import { BEACON, BEACON_V1, copyExampleCatalog, TUGLINE } from '../helpers/example-catalog.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// What an ingest must never do: empty the store because it could not read the checkout,
// or drop a version in silence.
let backend: TestBackend;
let catalog: string;
let baseUrl: string;

// Counts follow the example catalog, which grows: measured once here, not written down.
let total: number;
let stored: string[];

beforeAll(async () => {
  catalog = copyExampleCatalog();
  backend = await startTestBackend({ CATALOG_DIR: catalog });
  baseUrl = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  const first = (await ingest({ catalogVersion: 'first' })).json;
  total = first.total;
  expect(first).toMatchObject({ ingested: total, failed: 0 });
  stored = await storedVersions();
  expect(stored).toEqual(expect.arrayContaining(['beacon:v1.0.0,v1.1.0', 'tugline:v1.0.0']));
});
afterAll(async () => {
  await backend.close();
  rmSync(dirname(catalog), { recursive: true, force: true });
});

const ingest = async (body?: object) => {
  const response = await backend.app.inject({ method: 'POST', url: '/ingest', ...(body ? { payload: body } : {}) });
  return { status: response.statusCode, json: response.json() };
};
const ndjson = async (body: object = {}) => {
  const response = await fetch(`${baseUrl}/ingest`, {
    method: 'POST', headers: { accept: 'application/x-ndjson', 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, lines: response.status === 200 ? text.trim().split('\n').map((line) => JSON.parse(line)) : [JSON.parse(text)] };
};
const storedVersions = async () => (await backend.app.inject('/test-cases')).json().testCases.map((entry: { slug: string; versions: string[] }) => `${entry.slug}:${entry.versions.join(',')}`);

describe('an ingest that cannot read the checkout', () => {
  it.each([
    ['the catalog root is missing', () => renameSync(catalog, `${catalog}.away`), () => renameSync(`${catalog}.away`, catalog), `The catalog root ${'$ROOT'}`],
    [
      'test-cases/ is missing',
      () => renameSync(join(catalog, 'test-cases'), join(dirname(catalog), 'test-cases.away')),
      () => renameSync(join(dirname(catalog), 'test-cases.away'), join(catalog, 'test-cases')),
      "The catalog's test-cases/ folder",
    ],
  ])('fails with 503 and changes nothing when %s', async (_, breakIt, repair, start) => {
    const groups = (await backend.app.inject('/test-case-groups')).json();
    breakIt();
    try {
      for (const body of [{}, { catalogVersion: 'second' }, { force: true }]) {
        const { status, json } = await ingest(body);
        expect(status).toBe(503);
        expect(json.error.code).toBe('catalog_unavailable');
        expect(json.error.message).toContain(start.replace('$ROOT', catalog));
        expect(json.error.message).toMatch(/nothing was changed\.$/);
      }
      const streamed = await ndjson();
      expect(streamed.status).toBe(503);
      expect(streamed.lines[0].error.code).toBe('catalog_unavailable');
    } finally {
      repair();
    }
    expect(await storedVersions()).toEqual(stored);
    expect((await backend.app.inject('/test-case-groups')).json()).toEqual(groups);
    expect(await storeMeta(backend.store).get('catalog_version')).toBe('first');
    // The same token still means the same catalog: nothing was recorded by the failed scans.
    expect((await ingest({ catalogVersion: 'first' })).json).toMatchObject({ total, ingested: 0, skipped: total });
  });
});

describe('versions a scan finds but cannot use', () => {
  it('reports an unreadable manifest as a failed line naming the file and keeps its stored copy', async () => {
    const manifest = join(catalog, BEACON, 'test-case.toml');
    const saved = `${manifest}.saved`;
    cpSync(manifest, saved);
    writeFileSync(manifest, 'slug = "beacon\nname = "Beacon"\n');
    try {
      const { status, json } = await ingest();
      expect(status).toBe(200);
      expect(json).toMatchObject({ total, ingested: 0, skipped: total - 1, failed: 1, pruned: [] });
      expect(json.testCaseVersions.find((line: { error?: string }) => line.error)).toEqual({
        slug: 'beacon', version: 'v1.1.0', ingested: false, renderedReferences: 0,
        error: `${BEACON}/test-case.toml: invalid TOML: the string that opens at line 1, column 8 is not closed on that line `
          + '(close it with " before the line ends, or use a triple-quoted string for text over several lines)',
      });
      expect((await backend.app.inject('/test-cases/beacon/versions/v1.1.0')).statusCode).toBe(200);
    } finally {
      renameSync(saved, manifest);
    }
  });

  it('reports two folders declaring one slug@version, naming both files, and keeps the stored copy', async () => {
    const twin = TUGLINE.replace('/tugline/', '/tugline-twin/');
    cpSync(join(catalog, TUGLINE), join(catalog, twin), { recursive: true });
    try {
      const { json } = await ingest();
      expect(json).toMatchObject({ total, ingested: 0, skipped: total - 1, failed: 1, pruned: [] });
      expect(json.testCaseVersions.at(-1)).toEqual({
        slug: 'tugline', version: 'v1.0.0', ingested: false, renderedReferences: 0,
        error: `${twin}/test-case.toml: declares tugline v1.0.0, as does ${TUGLINE}/test-case.toml; neither is ingested`,
      });
      expect((await backend.app.inject('/test-cases/tugline/versions/v1.0.0')).statusCode).toBe(200);
    } finally {
      rmSync(join(catalog, dirname(twin)), { recursive: true });
    }
  });

  it('names every pruned version, on the JSON report and on the NDJSON done line', async () => {
    const away = join(dirname(catalog), 'beacon-v1.0.0');
    renameSync(join(catalog, BEACON_V1), away);
    try {
      const { lines } = await ndjson();
      expect(lines.at(-1)).toEqual({ event: 'done', total: total - 1, ingested: 0, skipped: total - 1, failed: 0, pruned: [{ slug: 'beacon', version: 'v1.0.0' }] });
      expect(await storedVersions()).toEqual(stored.map((entry) => (entry.startsWith('beacon:') ? 'beacon:v1.1.0' : entry)));
    } finally {
      renameSync(away, join(catalog, BEACON_V1));
    }
    expect((await ingest()).json).toMatchObject({ total, ingested: 1, skipped: total - 1, failed: 0, pruned: [] });
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedSchemaFiles } from '../../src/ops/write-published-schemas.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const REPO_COPY = resolve(__dirname, '../../schemas');

/** The wire contracts the contract's Versioning part says are published. */
const CONTRACT_SCHEMAS = [
  'error', 'test-case-catalog', 'test-case-versions', 'resolved-test-case-version', 'review', 'runs',
  'coverage-group', 'coverage-plan', 'coverage-matrix', 'coverage-settings', 'ladder', 'ladder-progress',
];

let backend: TestBackend;
beforeAll(async () => {
  backend = await startTestBackend();
});
afterAll(async () => {
  await backend.close();
});

describe('published JSON Schemas', () => {
  it('are served at /schemas/<name>.schema.json and listed at /schemas', async () => {
    const listed = (await backend.app.inject({ method: 'GET', url: '/schemas' })).json<{ schemas: string[] }>().schemas;
    expect(listed).toEqual(expect.arrayContaining(CONTRACT_SCHEMAS.map((name) => `/schemas/${name}.schema.json`)));
    for (const path of listed) {
      const response = await backend.app.inject({ method: 'GET', url: path });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/schema\+json/);
      expect(response.json()).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', $id: path.slice('/schemas/'.length) });
    }
    const unknown = await backend.app.inject({ method: 'GET', url: '/schemas/nothing.schema.json' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toMatch(/No published schema nothing\.schema\.json/);
    // Names every object inherits are not schemas either (the route fuzz found a 500 here).
    for (const inherited of ['constructor', 'tostring', 'hasownproperty', '--proto--']) {
      expect((await backend.app.inject({ method: 'GET', url: `/schemas/${inherited}.schema.json` })).statusCode).toBe(404);
    }
    expect((await backend.app.inject({ method: 'GET', url: '/schemas/constructor.schema.json' })).json().error.code).toBe('not_found');
  });

  it('match the copy kept in schemas/ (run `npm run schemas` after changing a published shape)', async () => {
    const served = publishedSchemaFiles();
    const kept = readdirSync(REPO_COPY).filter((file) => file.endsWith('.schema.json')).sort();
    expect(kept).toEqual([...served.keys()].sort());
    for (const file of kept) {
      const response = await backend.app.inject({ method: 'GET', url: `/schemas/${file}` });
      expect(`${response.body}\n`, `schemas/${file} has drifted from the route schemas; run npm run schemas`).toBe(readFileSync(join(REPO_COPY, file), 'utf8'));
      expect(served.get(file)).toBe(readFileSync(join(REPO_COPY, file), 'utf8'));
    }
  });
});

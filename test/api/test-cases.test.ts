import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleCatalog, CRABBER, LOW_TIDE, REGATTA } from '../helpers/example-catalog.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
const get = (url: string) => backend.app.inject(url);

beforeAll(async () => {
  // A legacy case, an engine-format case and a jam from the examples, with their group.
  const catalog = copyExampleCatalog([LOW_TIDE, REGATTA, CRABBER, 'test-case-groups/harbor-lights']);
  backend = await startTestBackend({ CATALOG_DIR: catalog });
  expect((await backend.app.inject({ method: 'POST', url: '/ingest' })).json()).toMatchObject({ ingested: 3, failed: 0 });
});
afterAll(() => backend.close());

describe('catalog and versions', () => {
  it('lists every case with display fields from its latest version', async () => {
    const { testCases } = (await get('/test-cases')).json();
    expect(testCases.map((entry: { slug: string }) => entry.slug)).toEqual(['crabber', 'low-tide', 'skiff-race']);
    const crabber = testCases.find((entry: { slug: string }) => entry.slug === 'crabber');
    expect(crabber).toMatchObject({ versions: ['v2.0.0'], testType: 'end-to-end', difficulty: 'easy' });
    expect(crabber.showcase).toMatchObject({ version: 'v2.0.0', variant: 'base', media: [expect.objectContaining({ file: 'title.png', kind: 'image' }), expect.anything()] });
    expect(testCases.find((entry: { slug: string }) => entry.slug === 'low-tide').testType).toBe('game-jam');
  });

  it('answers the versions of a case and 404 for an unknown slug', async () => {
    expect((await get('/test-cases/skiff-race/versions')).json()).toEqual({ slug: 'skiff-race', versions: ['v1.1.0'] });
    // The folder's name is not the case's slug.
    const unknown = await get('/test-cases/regatta/versions');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });

  it('lists groups in display order', async () => {
    const { groups } = (await get('/test-case-groups')).json();
    expect(groups).toEqual([expect.objectContaining({ slug: 'harbor-lights', cases: expect.arrayContaining(['beacon', 'low-tide']) })]);
  });
});

describe('resolved version', () => {
  it('resolves a legacy case with store-relative keys, media URLs and converted runtime', async () => {
    const response = await get('/test-cases/skiff-race/versions/v1.1.0');
    expect(response.statusCode).toBe(200);
    const regatta = response.json();
    expect(regatta).toMatchObject({ slug: 'skiff-race', version: 'v1.1.0', engineFormat: false, maxRuntimeSeconds: 5400 });
    expect(regatta.commonSpecs[0]).toMatchObject({ source: expect.stringMatching(/^specs\//), template: expect.any(Boolean) });
    expect(regatta.commonReferences).toContainEqual({ view: 'gameplay', kind: 'rendered', mediaUrl: '/test-cases/skiff-race/versions/v1.1.0/references/_common/gameplay.png' });
    expect(regatta.variants.map((variant: { slug: string }) => variant.slug)).toEqual(['base', 'fleet', 'gusts']);
    expect(regatta.variants[0].prompt).not.toContain('{{');
    expect(JSON.stringify(regatta)).not.toContain('<html');
  });

  it('resolves an engine-format case with pinned engines and graded items carrying domains and failureCap', async () => {
    const crabber = (await get('/test-cases/crabber/versions/v2.0.0')).json();
    expect(crabber.engineFormat).toBe(true);
    expect(crabber.engines).toContainEqual({ slug: 'none' });
    expect(crabber.engines.some((engine: { minVersion?: string }) => engine.minVersion)).toBe(true);
    const item = crabber.commonReviewItems[0];
    expect(item).toMatchObject({ domains: expect.any(Array), failureCap: expect.any(String) });
  });

  it('renders prompts for ?engine=, treats an absent engine as none, and refuses an unknown one', async () => {
    const none = (await get('/test-cases/crabber/versions/v2.0.0?engine=none')).json().variants[0].prompt;
    const absent = (await get('/test-cases/crabber/versions/v2.0.0')).json().variants[0].prompt;
    const structured = (await get('/test-cases/crabber/versions/v2.0.0?engine=structured-2d')).json().variants[0].prompt;
    expect(absent).toBe(none);
    expect(structured).not.toBe(none);
    const unknown = await get('/test-cases/crabber/versions/v2.0.0?engine=unity');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toEqual({
      code: 'bad_request',
      message: 'engine "unity" is not a known engine (none, simple-2d, structured-2d, decoupled-2d, decoupled-3d).',
    });
  });

  it('answers 404 for a version never ingested', async () => {
    expect((await get('/test-cases/skiff-race/versions/v9.0.0')).statusCode).toBe(404);
  });
});

describe('specs', () => {
  it('renders the variant’s full seeded spec set in seed order', async () => {
    const resolved = (await get('/test-cases/skiff-race/versions/v1.1.0')).json();
    const answer = (await get('/test-cases/skiff-race/versions/v1.1.0/specs/gusts')).json();
    expect(answer).toMatchObject({ slug: 'skiff-race', version: 'v1.1.0', variant: 'gusts', description: resolved.variants[2].description });
    const specs = answer.specs;
    const expected = [...resolved.commonSpecs, ...resolved.variants[2].specs].map((spec: { source: string }) => spec.source);
    expect(specs.map((spec: { source: string }) => spec.source)).toEqual(expected);
    for (const spec of specs) {
      expect(typeof spec.body).toBe('string');
      if (spec.template) expect(spec.body).not.toMatch(/\{\{/);
    }
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/specs/nope')).statusCode).toBe(404);
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/specs/base?engine=warp')).statusCode).toBe(400);
  });
});

describe('files', () => {
  it('serves artifacts by store-relative key with their content type, .hbs verbatim', async () => {
    const prompt = await get('/test-cases/skiff-race/versions/v1.1.0/artifacts/prompt.hbs');
    expect(prompt.statusCode).toBe(200);
    expect(prompt.headers['content-type']).toMatch(/^text\/plain/);
    expect(prompt.body).toContain('{{');
    const image = await get('/test-cases/crabber/versions/v2.0.0/artifacts/assets/crab/0.png');
    expect(image.headers['content-type']).toBe('image/png');
  });

  it('never serves anything outside the version’s store folder', async () => {
    const attempts = [
      '/test-cases/skiff-race/versions/v1.1.0/artifacts/../../../../../../etc/passwd',
      '/test-cases/skiff-race/versions/v1.1.0/artifacts/%2e%2e/%2e%2e/resolved.json',
      '/test-cases/skiff-race/versions/v1.1.0/artifacts/%252e%252e/resolved.json',
      '/test-cases/skiff-race/versions/v1.1.0/artifacts//etc/passwd',
      '/test-cases/skiff-race/versions/v1.1.0/artifacts/specs/..%2f..%2fresolved.json',
      '/test-cases/skiff-race/versions/v1.1.0/artifacts/nope.md',
    ];
    for (const url of attempts) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.body).not.toContain('root:');
    }
    // A symlink planted inside the stored copy that points out of it.
    const indexed = (await backend.app.catalog.index.get('skiff-race', 'v1.1.0'))!;
    symlinkSync('/etc/passwd', join(indexed.storeDir, 'source', 'escape.txt'));
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/artifacts/escape.txt')).statusCode).toBe(404);
  });

  it('serves references by scope and view, 404 for others', async () => {
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/references/_common/gameplay.png')).headers['content-type']).toBe('image/png');
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/references/_common/title.png')).statusCode).toBe(404);
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/references/_common/..%2f..%2fresolved.json')).statusCode).toBe(404);
  });

  it('lists validation files sorted and recursive, empty when the version declares none', async () => {
    const files = (await get('/test-cases/crabber/versions/v2.0.0/validation-files')).json();
    expect(files.length).toBe(39);
    expect(files).toEqual([...files].sort());
    expect(files.every((key: string) => key.startsWith('validation/'))).toBe(true);
    expect(files.some((key: string) => key.split('/').length > 3)).toBe(true);
    expect((await get('/test-cases/skiff-race/versions/v1.1.0/validation-files')).json()).toEqual([]);
  });

  it('serves only showcase files the carousel lists, never showcase.toml', async () => {
    expect((await get('/test-cases/crabber/versions/v2.0.0/showcase/base/title.png')).headers['content-type']).toBe('image/png');
    expect((await get('/test-cases/crabber/versions/v2.0.0/showcase/base/showcase.toml')).statusCode).toBe(404);
    expect((await get('/test-cases/crabber/versions/v2.0.0/showcase/nope/title.png')).statusCode).toBe(404);
  });

  it('serves baseline media of a reference build by engine and variant', async () => {
    const indexed = (await backend.app.catalog.index.get('crabber', 'v2.0.0'))!;
    const dir = join(indexed.storeDir, 'source', 'validation-baseline', 'structured-2d', 'base');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hud-score__frame.png'), 'png bytes');
    expect((await get('/test-cases/crabber/versions/v2.0.0/validation-baseline/structured-2d/base/hud-score__frame.png')).statusCode).toBe(200);
    expect((await get('/test-cases/crabber/versions/v2.0.0/validation-baseline/simple-2d/base/hud-score__frame.png')).statusCode).toBe(404);
    expect((await get('/test-cases/crabber/versions/v2.0.0/validation-baseline/structured-2d/base/showcase.toml')).statusCode).toBe(404);
  });
});

describe('game jam prior READMEs', () => {
  it('answers the captured READMEs of earlier runs by the model, oldest first, across harnesses', async () => {
    expect((await get('/game-jams/low-tide/prior-readmes?model=acme/m')).json()).toEqual([]);
    const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T10:00:00Z`;
    const run = (id: string, readme: string | null, harness: string, modelId: string, day: number) => ({
      id, record: JSON.stringify({ gameJamReadme: readme }), record_format: 1, state: 'completed', test_case_slug: 'low-tide', test_case_version: 'v1.0.0',
      variant: 'base', harness, model_id: modelId, finished_at: at(day), created_at: at(day), updated_at: at(day),
    });
    await backend.store.db.insertInto('runs').values([
      run('r2', '# Second', 'codex', 'acme/m', 12),
      run('r1', '# First', 'claude', 'acme/m', 10),
      run('r3', null, 'claude', 'acme/m', 13),
      run('r4', '# Other model', 'claude', 'acme/other', 11),
    ]).execute();
    const readmes = (await get('/game-jams/low-tide/prior-readmes?model=acme/m')).json();
    expect(readmes.map((entry: { runId: string; readme: string }) => [entry.runId, entry.readme])).toEqual([['r1', '# First'], ['r2', '# Second']]);
    expect((await get('/game-jams/low-tide/prior-readmes')).statusCode).toBe(400);
    expect((await get('/game-jams/nope/prior-readmes?model=acme/m')).statusCode).toBe(404);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

// Each malformed case of a real catalog, and what its line on the ingest report says.
let backend: TestBackend;
let catalog: string;
let baseUrl: string;

function writeCase(slug: string, files: Record<string, string>, { manifest = '', tables = '' } = {}): void {
  const all: Record<string, string> = {
    'test-case.toml': [
      `slug = "${slug}"`, 'name = "Case"', 'difficulty = "easy"', 'summary = "A case."', 'prompt = "prompt.hbs"',
      'variants = ["variants/base.toml"]', manifest, '[[spec]]', 'source = "specs/brief.md"', tables,
    ].join('\n'),
    'prompt.hbs': 'Build {{variant.name}} in {{workspace}}.',
    'specs/brief.md': 'The brief.',
    'variants/base.toml': 'slug = "base"\nname = "Base"\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    const file = join(catalog, 'test-cases', slug, 'v1.0.0', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

beforeAll(async () => {
  catalog = join(mkdtempSync(join(tmpdir(), 'evb-malformed-')), 'catalog');
  writeCase('module', {}, { tables: '[build]\ninstall = "npm ci"\nbuild = "npm run build"\nmodule = "esm"\n' });
  writeCase('late-runtime', {}, { tables: '[build]\ninstall = "npm ci"\nbuild = "npm run build"\nmax_runtime_hours = 1.5\n' });
  writeCase('typos', {
    'variants/base.toml': 'slug = "base"\nname = "Base"\ncolour = "red"\n',
    'reference/title.html': '<!DOCTYPE html><html><body><h1>Title</h1></body></html>',
    'errata.toml': '[[erratum]]\nid = "e1"\ntitle = "T"\nbody = "B"\nfixed_in = "v1.1.0"\n',
  }, { manifest: 'experimantal = true', tables: '[[reference]]\nview = "title"\npath = "reference/title.html"\nzoom = 2\n[[check]]\nview = "title"\nwait = 5\nactions = [{ type = "wait", ms = 100 }]\n' });
  writeCase('shouty', { 'prompt.hbs': 'Brief\n\nBuild {{uppercase variant.name}} in {{workspace}}.' });
  writeCase('unclosed', { 'test-case.toml': 'slug = "unclosed"\nname = "Unclosed\n' });
  writeCase('fonts', {
    'reference/title.html': '<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.com/a.css"></head><body>Title</body></html>',
    'reference/end.html': '<!DOCTYPE html><html><head><link rel="stylesheet" href="../../../elsewhere.css"></head><body>End</body></html>',
  }, { tables: '[[reference]]\nview = "title"\npath = "reference/title.html"\n[[reference]]\nview = "end"\npath = "reference/end.html"\n' });
  writeCase('duel', {
    'contract/world.schema.json': '{"type":"object"}',
    'contract/action.schema.json': '{"type":"string"}',
    'variants/base.toml': 'slug = "base"\nname = "Base"\nspec = ["specs/base-rules.md"]\n',
    'specs/base-rules.md': 'Base rules.',
  }, {
    manifest: 'type = "adversarial"',
    tables: '[contract]\nentry = "decide"\nworld = "contract/world.schema.json"\naction = "contract/action.schema.json"\n',
  });
  backend = await startTestBackend({ CATALOG_DIR: catalog });
  baseUrl = await backend.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await backend.close();
  rmSync(dirname(catalog), { recursive: true, force: true });
});

type Line = { slug: string; event?: string; [key: string]: unknown };
let lines: Line[];
let report: { testCaseVersions: Line[]; [key: string]: unknown };
const line = (slug: string) => report.testCaseVersions.find((entry) => entry.slug === slug);

describe('the report of a scan over malformed cases', () => {
  it('adds up, on the NDJSON done line and on the JSON report', async () => {
    const response = await fetch(`${baseUrl}/ingest`, { method: 'POST', headers: { accept: 'application/x-ndjson' } });
    lines = (await response.text()).trim().split('\n').map((text) => JSON.parse(text));
    expect(lines.at(-1)).toEqual({ event: 'done', total: 7, ingested: 4, skipped: 0, failed: 3, pruned: [] });
    // The next, unchanged scan: the failures are failures again, not also skips.
    report = (await backend.app.inject({ method: 'POST', url: '/ingest' })).json();
    expect(report).toMatchObject({ total: 7, ingested: 0, skipped: 4, failed: 3 });
    for (const framing of [lines.at(-1)!, report]) {
      expect((framing['ingested'] as number) + (framing['skipped'] as number) + (framing['failed'] as number)).toBe(framing['total']);
    }
  });

  it('keeps every key of a pass-through [build] table, with no warning', async () => {
    expect(line('module')).toEqual({ slug: 'module', version: 'v1.0.0', ingested: false, renderedReferences: 0 });
    const resolved = (await backend.app.inject('/test-cases/module/versions/v1.0.0')).json();
    expect(resolved.build).toEqual({ install: 'npm ci', build: 'npm run build', module: 'esm' });
  });

  it('refuses a root key written inside a table, naming the file, the key and the table', () => {
    expect(line('late-runtime')).toEqual({
      slug: 'late-runtime', version: 'v1.0.0', ingested: false, renderedReferences: 0,
      error: 'test-cases/late-runtime/v1.0.0/test-case.toml: "max_runtime_hours" is a root key but sits in table [build]: '
        + 'TOML reads every key after a table header as part of that table; move it above the first table header',
    });
  });

  it('warns of keys the format does not define in the tables it interprets, on both framings', () => {
    const warnings = [
      { file: 'test-cases/typos/v1.0.0/test-case.toml', key: 'experimantal', why: 'not a key the catalog format defines at the root of this file; it is ignored' },
      { file: 'test-cases/typos/v1.0.0/test-case.toml', key: 'reference #1.zoom', why: 'not a key the catalog format defines in reference #1; it is ignored' },
      { file: 'test-cases/typos/v1.0.0/test-case.toml', key: 'check #1.wait', why: 'not a key the catalog format defines in check #1; it is ignored' },
      { file: 'test-cases/typos/v1.0.0/variants/base.toml', key: 'colour', why: 'not a key the catalog format defines at the root of this file; it is ignored' },
      { file: 'test-cases/typos/v1.0.0/errata.toml', key: 'erratum #1.fixed_in', why: 'not a key the catalog format defines in erratum #1; it is ignored' },
    ];
    expect(lines.find((entry) => entry.event === 'version' && entry.slug === 'typos')).toMatchObject({ ingested: true, warnings });
  });

  it('names an unknown helper with the file, line and column', () => {
    expect(line('shouty')!['error']).toBe(
      'test-cases/shouty/v1.0.0/prompt.hbs: template error: unknown helper "uppercase" at line 3, column 9 (the helpers templates may use: eq)',
    );
  });

  it('says a string is not closed, where it opens', () => {
    expect(line('unclosed')!['error']).toBe(
      'test-cases/unclosed/v1.0.0/test-case.toml: invalid TOML: the string that opens at line 2, column 8 is not closed on that line '
        + '(close it with " before the line ends, or use a triple-quoted string for text over several lines)',
    );
  });

  it('ties each refused URL to the view and mockup file that asked for it', () => {
    const fonts = lines.find((entry) => entry.event === 'version' && entry.slug === 'fonts')!;
    expect(fonts['blockedUrls']).toEqual([
      { view: 'title', file: 'reference/title.html', url: 'https://fonts.example.com/a.css' },
      // Relative to the mockup, as written: the store path it resolved to would tell nobody anything.
      { view: 'end', file: 'reference/end.html', url: '../../../elsewhere.css' },
    ]);
  });

  it('seeds the schema files a [contract] declares, after the common specs and before the variant\'s own', async () => {
    const answer = (await backend.app.inject('/test-cases/duel/versions/v1.0.0/specs/base')).json();
    expect(answer.specs.map(({ source, dest, kind }: Record<string, string>) => `${source}->${dest} (${kind})`)).toEqual([
      'specs/brief.md->specs/brief.md (spec)',
      'contract/world.schema.json->contract/world.schema.json (schema)',
      'contract/action.schema.json->contract/action.schema.json (schema)',
      'specs/base-rules.md->specs/base-rules.md (spec)',
    ]);
    expect(answer.specs[1].body).toBe('{"type":"object"}');
    const resolved = (await backend.app.inject('/test-cases/duel/versions/v1.0.0')).json();
    expect(resolved.contract).toEqual({ entry: 'decide', world: 'contract/world.schema.json', action: 'contract/action.schema.json' });
    expect(resolved.assetKind).toBeNull();
    expect((await backend.app.inject('/test-cases/duel/versions/v1.0.0/artifacts/contract/world.schema.json')).statusCode).toBe(200);
  });
});

import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogFileError } from '../../src/catalog/catalog-file-error.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { copyOfCatalog, CRABBER, minimalCase, tempDir, writeVersion } from './catalog-test-helpers.js';

const MINI = 'test-cases/mini/v1.0.0';

async function readMini(extra: Parameters<typeof minimalCase>[1] = {}) {
  const root = await tempDir();
  const dir = await writeVersion(root, MINI, minimalCase('mini', extra));
  return readVersion(root, dir);
}

async function failure(promise: Promise<unknown>): Promise<CatalogFileError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(CatalogFileError);
  return error as CatalogFileError;
}

describe('readVersion on broken versions', () => {
  it('reads a minimal case in the older test-cases/<slug>/<version> layout', async () => {
    const { record } = await readMini();
    expect(record).toMatchObject({ slug: 'mini', version: 'v1.0.0', maxRuntimeSeconds: 3600, engines: [{ slug: 'none' }] });
    expect(record.variants[0]!.prompt).toBe('Build Base in /work. Read /work/specs/rules.md.');
  });

  it('names the manifest and the parser position for bad TOML', async () => {
    const root = await tempDir();
    const dir = await writeVersion(root, MINI, { ...minimalCase('mini'), 'test-case.toml': 'slug = "mini"\nname = "Mini\n' });
    const error = await failure(readVersion(root, dir));
    expect(error.file).toBe(`${MINI}/test-case.toml`);
    expect(error.message).toBe(
      `${MINI}/test-case.toml: invalid TOML: the string that opens at line 2, column 8 is not closed on that line `
      + '(close it with " before the line ends, or use a triple-quoted string for text over several lines)',
    );
    const atEnd = await writeVersion(root, 'test-cases/eof/v1.0.0', { ...minimalCase('eof'), 'test-case.toml': 'slug = "eof"\nsummary = """Never closed\n' });
    expect((await failure(readVersion(root, atEnd))).message).toBe(
      'test-cases/eof/v1.0.0/test-case.toml: invalid TOML: the string that opens at line 2, column 11 is not closed before the end of the file',
    );
    const other = await writeVersion(root, 'test-cases/other/v1.0.0', { ...minimalCase('other'), 'test-case.toml': 'slug = "other"\nname = = 1\n' });
    expect((await failure(readVersion(root, other))).message).toMatch(/^test-cases\/other\/v1\.0\.0\/test-case\.toml: invalid TOML at line 2, column \d+: /);
  });

  it('names bad TOML in a variant file too', async () => {
    const error = await failure(readMini({ files: { 'variants/base.toml': 'slug = \n' } }));
    expect(error.file).toBe(`${MINI}/variants/base.toml`);
  });

  it('refuses a manifest naming a file that does not exist, naming both', async () => {
    const error = await failure(readMini({ manifest: '[[spec]]\nsource = "specs/missing.md"' }));
    expect(error.file).toBe(`${MINI}/test-case.toml`);
    expect(error.message).toContain(`${MINI}/specs/missing.md, which does not exist`);
  });

  it('refuses paths that leave the version folder', async () => {
    const error = await failure(readMini({ manifest: 'assets = ["../../elsewhere"]' }));
    expect(error.message).toContain('must stay inside the version folder');
  });

  it('refuses an inlined text that is a symlink out of the checkout', async () => {
    const root = await tempDir();
    const outside = await tempDir('outside-');
    await writeFile(join(outside, 'secret.md'), 'secret');
    const dir = await writeVersion(root, MINI, minimalCase('mini'));
    await symlink(join(outside, 'secret.md'), join(dir, 'leak.md'));
    const manifest = (await readFile(join(dir, 'test-case.toml'), 'utf8')).replace('description = "description.md"', 'description = "leak.md"');
    await writeFile(join(dir, 'test-case.toml'), manifest);
    const error = await failure(readVersion(root, dir));
    expect(error.message).toContain('symlink that leaves the checkout');
  });

  it('names the template file when strict mode meets an unknown variable', async () => {
    const root = await copyOfCatalog([CRABBER]);
    const spec = join(root, CRABBER, 'specs/controls.md.hbs');
    await writeFile(spec, `${await readFile(spec, 'utf8')}\n{{#if (eq engine.slug "simple-2d")}}{{engine.colour}}{{/if}}\n`);
    const error = await failure(readVersion(root, join(root, CRABBER)));
    expect(error.file).toBe(`${CRABBER}/specs/controls.md.hbs`);
    expect(error.message).toMatch(/template error: "engine.colour" is not defined at line \d+, column \d+$/);
  });

  it('fails ingest when the prompt breaks for one variant only', async () => {
    const root = await tempDir();
    const files = minimalCase('mini', {
      files: {
        'prompt.hbs': '{{#if (eq variant.slug "base")}}ok{{else}}{{variant.nickname}}{{/if}}',
        'variants/hard.toml': 'slug = "hard"\n',
      },
    });
    files['test-case.toml'] = files['test-case.toml']!.replace('["variants/base.toml"]', '["variants/base.toml", "variants/hard.toml"]');
    const error = await failure(readVersion(root, await writeVersion(root, MINI, files)));
    expect(error.file).toBe(`${MINI}/prompt.hbs`);
    expect(error.message).toBe(`${MINI}/prompt.hbs: template error: "variant.nickname" is not defined at line 1, column 45`);
  });

  it('warns of an unknown root key, and refuses an unknown engine and an unknown test type', async () => {
    expect((await readMini({ manifest: 'experimantal = true' })).warnings).toEqual([{
      file: `${MINI}/test-case.toml`, key: 'experimantal', why: 'not a key the catalog format defines at the root of this file; it is ignored',
    }]);
    expect((await failure(readMini({ manifest: 'engines = ["unreal"]' }))).message).toContain('unknown engine "unreal"');
    expect((await failure(readMini({ manifest: 'type = "speedrun"' }))).message).toContain('"type" must be one of');
  });

  it('reads old max_runtime_seconds and refuses both spellings at once', async () => {
    expect((await readMini({ manifest: 'max_runtime_seconds = 900' })).record.maxRuntimeSeconds).toBe(900);
    expect((await failure(readMini({ manifest: 'max_runtime_seconds = 900\nmax_runtime_hours = 1' }))).message).toContain('not both');
  });

  it('reads errata.toml', async () => {
    const { record } = await readMini({
      files: {
        'errata.toml': [
          '[[erratum]]', 'id = "e1"', 'title = "Typo"', 'date = 2025-03-01', 'severity = "info"', 'body = "Fixed wording."',
          '[[erratum]]', 'id = "e2"', 'title = "Wrong speed"', 'affects_scoring = true', 'body = "Speed off."', 'resolved_in = "v1.0.1"', 'variant = "base"',
        ].join('\n'),
      },
    });
    expect(record.errata).toEqual([
      { id: 'e1', title: 'Typo', date: '2025-03-01', severity: 'info', affectsScoring: false, body: 'Fixed wording.', resolvedIn: null, variant: null },
      { id: 'e2', title: 'Wrong speed', date: null, severity: 'minor', affectsScoring: true, body: 'Speed off.', resolvedIn: 'v1.0.1', variant: 'base' },
    ]);
  });

  it('refuses an erratum with an unknown severity or variant', async () => {
    const bad = (line: string) => readMini({ files: { 'errata.toml': `[[erratum]]\nid = "e"\ntitle = "t"\nbody = "b"\n${line}` } });
    expect((await failure(bad('severity = "fatal"'))).file).toBe(`${MINI}/errata.toml`);
    expect((await failure(bad('variant = "nope"'))).message).toContain('unknown variant "nope"');
  });

  it('copies static media references and uses a declared viewport for mockups', async () => {
    const result = await readMini({
      manifest: '[viewport]\nwidth = 1280\nheight = 720\n[[reference]]\nview = "title"\npath = "reference/title.html"\n[[reference]]\nview = "clip"\nmedia = "reference/clip.MP4"',
      files: { 'reference/title.html': '<html></html>', 'reference/clip.MP4': 'x' },
    });
    expect(result.referencesToRender).toEqual([
      { view: 'title', scope: '_common', htmlPath: 'reference/title.html', outFile: 'title.png', viewport: { width: 1280, height: 720 } },
    ]);
    expect(result.staticReferences).toEqual([{ view: 'clip', scope: '_common', kind: 'video', mediaPath: 'reference/clip.MP4', outFile: 'clip.mp4' }]);
    expect(result.record.commonReferences[1]).toEqual({ view: 'clip', kind: 'video', mediaUrl: '/test-cases/mini/versions/v1.0.0/references/_common/clip.mp4' });
  });

  it('reads checks and refuses one pointing at an undeclared reference or with an unknown action', async () => {
    const reference = '[[reference]]\nview = "title"\npath = "t.html"\n';
    const files = { 't.html': '<html></html>' };
    const { record } = await readMini({
      manifest: `${reference}[[check]]\nview = "title"\nactions = [{ type = "wait", ms = 500 }, { type = "key", key = "Enter" }, { type = "hold", key = "ArrowUp", ms = 200 }, { type = "click", x = 10, y = 20.5 }]`,
      files,
    });
    expect(record.checks).toEqual([{
      view: 'title', name: 'title', referenceView: 'title',
      actions: [{ type: 'wait', ms: 500 }, { type: 'key', key: 'Enter' }, { type: 'hold', key: 'ArrowUp', ms: 200 }, { type: 'click', x: 10, y: 20.5 }],
    }]);
    expect((await failure(readMini({ manifest: `${reference}[[check]]\nview = "menu"\nactions = []`, files }))).message).toContain('"menu", which no reference declares');
    expect((await failure(readMini({ manifest: `${reference}[[check]]\nview = "title"\nactions = [{ type = "swipe" }]`, files }))).message).toContain('unknown action type "swipe"');
  });

  it('keeps a format 2 checklist off the engine format when one item lacks failure_cap', async () => {
    const { record } = await readMini({
      manifest: [
        '[[domain]]', 'id = "core"', 'description = "Core."',
        '[review]', 'format = 2',
        '[[review.categories]]', 'id = "play"', 'title = "Play"',
        '[[review.categories.items]]', 'id = "moves"', 'title = "Moves"', 'domains = ["core"]', 'failure_cap = "broken"',
        '[[review.categories.items]]', 'id = "jumps"', 'title = "Jumps"', 'domains = ["core"]',
      ].join('\n'),
    });
    expect(record.engineFormat).toBe(false);
    expect(record.commonReviewItems.map((item) => item.id)).toEqual(['play.moves', 'play.jumps']);
    expect(record.commonReviewItems[0]).not.toHaveProperty('failureCap');
  });

  it('refuses a failure cap that is not a tier and a domain nobody declared', async () => {
    const item = (extra: string) => readMini({
      manifest: `[[domain]]\nid = "core"\ndescription = "Core."\n[review]\nformat = 2\n[[review.categories]]\nid = "c"\n[[review.categories.items]]\nid = "i"\ntitle = "I"\n${extra}`,
    });
    expect((await failure(item('domains = ["core"]\nfailure_cap = "meh"'))).message).toContain('"failure_cap" must be one of');
    expect((await failure(item('domains = ["ghost"]\nfailure_cap = "broken"'))).message).toContain('undeclared domain "ghost"');
  });

  it('refuses a variant reusing a common review verdict id, and a review item naming an unknown view', async () => {
    const item = (id: string, extra = '') => `[[review_item]]\nid = "${id}"\ntitle = "T"\ntext = "T"\n${extra}`;
    const clash = await failure(readMini({ manifest: item('fits'), files: { 'variants/base.toml': `slug = "base"\n${item('fits')}` } }));
    expect(clash.message).toContain('variant "base" repeats the common review verdict id "fits"');
    expect((await failure(readMini({ manifest: item('menu', 'reference = "title"') }))).message).toContain('names reference view "title"');
  });
});

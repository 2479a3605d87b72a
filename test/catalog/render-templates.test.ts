import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/errors.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { renderTemplate, renderVariantPrompt, renderVariantSpecs } from '../../src/catalog/render-templates.js';
import type { ResolvedVersion } from '../../src/catalog/resolved-version.js';
import { CAROM, FIXTURE, FLOE } from './catalog-test-helpers.js';

let carom: ResolvedVersion;
let floe: ResolvedVersion;

beforeAll(async () => {
  carom = (await readVersion(FIXTURE, join(FIXTURE, CAROM))).record;
  floe = (await readVersion(FIXTURE, join(FIXTURE, FLOE))).record;
});

function statusOf(run: () => unknown): number | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof HttpError ? error.statusCode : -1;
  }
  return undefined;
}

describe('prompt rendering', () => {
  it('renders each carom variant, and the engineless prompt equals the explicit none', () => {
    for (const variant of carom.variants) {
      const prompt = renderVariantPrompt(carom, variant.slug);
      expect(prompt).toBe(variant.prompt);
      expect(renderVariantPrompt(carom, variant.slug, 'none')).toBe(prompt);
      expect(prompt).toContain('`/work`');
    }
  });

  it('branches floe\'s prompt on the engine through the eq helper', () => {
    const none = renderVariantPrompt(floe, 'base');
    const simple = renderVariantPrompt(floe, 'base', 'simple-2d');
    const structured = renderVariantPrompt(floe, 'base', 'structured-2d');
    expect(none).toContain('What is missing is everything under `src/`');
    expect(none).not.toContain('engine\'s own documentation');
    expect(simple).toContain('This build runs on the **Simple 2D** engine');
    expect(simple).toContain('documentation is at `/work/engine`');
    expect(structured).toContain('This build runs on the **Structured 2D** engine');
    expect(new Set([none, simple, structured]).size).toBe(3);
  });

  it('answers 400 for an unknown engine and for one the version does not support', () => {
    expect(statusOf(() => renderVariantPrompt(floe, 'base', 'unreal'))).toBe(400);
    expect(statusOf(() => renderVariantPrompt(carom, 'base', 'simple-2d'))).toBe(400);
    expect(statusOf(() => renderVariantPrompt(carom, 'frenzy'))).toBe(400);
  });

  it('lists the variant\'s seeded specs to the prompt, common first', () => {
    const record = { ...carom, promptTemplate: '{{#each specs}}{{dest}}|{{path}}|{{name}}\n{{/each}}' };
    const lines = renderVariantPrompt(record, 'multi').trim().split('\n');
    expect(lines[0]).toBe('specs/overview.md|/work/specs/overview.md|overview');
    expect(lines.at(-1)).toBe('specs/balls.md|/work/specs/balls.md|balls');
    expect(lines).toHaveLength(8);
  });
});

describe('spec rendering', () => {
  it('renders floe\'s spec set per engine in seed order, templates rendered and others verbatim', async () => {
    const sourceDir = join(FIXTURE, FLOE);
    const none = await renderVariantSpecs(floe, sourceDir, 'base');
    const simple = await renderVariantSpecs(floe, sourceDir, 'base', 'simple-2d');
    expect(none.map((spec) => spec.dest)).toEqual(floe.commonSpecs.map((spec) => spec.dest));
    const overview = (specs: typeof none) => specs.find((spec) => spec.dest === 'specs/overview.md')!.body;
    expect(overview(none)).not.toContain('{{');
    expect(overview(simple)).toContain('built on the Simple 2D engine');
    expect(overview(none)).not.toContain('Simple 2D');
    const strait = none.find((spec) => spec.dest === 'specs/strait.md')!;
    expect(strait.template).toBe(false);
    expect(strait.body).toBe(simple.find((spec) => spec.dest === 'specs/strait.md')!.body);
  });

  it('renders carom\'s variant specs to their variant dests', async () => {
    const specs = await renderVariantSpecs(carom, join(FIXTURE, CAROM), 'gyre');
    expect(specs.map((spec) => `${spec.source}->${spec.dest}`).slice(-2)).toEqual([
      'specs/obstacles-gyre.md->specs/obstacles.md',
      'specs/balls-standard.md->specs/balls.md',
    ]);
  });

  it('gives templates strict mode, no escaping and the eq helper, and names the file on error', () => {
    expect(renderTemplate('{{a}} {{#if (eq b "x")}}yes{{/if}}', { a: '<b>&', b: 'x' }, 'inline.hbs')).toBe('<b>& yes');
    expect(() => renderTemplate('{{missing}}', {}, 'specs/a.md.hbs')).toThrow(/^specs\/a\.md\.hbs: template error: "missing" is not defined at line 1, column 3$/);
    expect(() => renderTemplate('{{#if}}', {}, 'specs/b.md.hbs')).toThrow(/^specs\/b\.md\.hbs: template error: Parse error/);
  });

  it('names an unknown helper, the file, the line and the column, apart from an unknown variable', () => {
    const source = 'Brief\n\nName it {{uppercase variant.name}}, then {{#if (shout variant.slug)}}x{{/if}}.';
    expect(() => renderTemplate(source, { variant: { name: 'a', slug: 'b' } }, 'prompt.hbs')).toThrow(
      'prompt.hbs: template error: unknown helper "uppercase" at line 3, column 11 (the helpers templates may use: eq)',
    );
    expect(() => renderTemplate('{{#if (shout variant.slug)}}x{{/if}}', { variant: { slug: 'b' } }, 'prompt.hbs')).toThrow(
      'prompt.hbs: template error: unknown helper "shout" at line 1, column 8 (the helpers templates may use: eq)',
    );
    expect(() => renderTemplate('Size {{voxel.width}}', {}, 'specs/brief.md.hbs')).toThrow(
      'specs/brief.md.hbs: template error: "voxel.width" is not defined at line 1, column 8',
    );
  });
});

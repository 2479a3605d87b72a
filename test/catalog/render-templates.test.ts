import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/errors.js';
import { readVersion } from '../../src/catalog/read-version.js';
import { renderTemplate, renderVariantPrompt, renderVariantSpecs } from '../../src/catalog/render-templates.js';
import type { ResolvedVersion } from '../../src/catalog/resolved-version.js';
import { CRABBER, EXAMPLE_CATALOG, REGATTA } from './catalog-test-helpers.js';

let regatta: ResolvedVersion;
let crabber: ResolvedVersion;

beforeAll(async () => {
  regatta = (await readVersion(EXAMPLE_CATALOG, join(EXAMPLE_CATALOG, REGATTA))).record;
  crabber = (await readVersion(EXAMPLE_CATALOG, join(EXAMPLE_CATALOG, CRABBER))).record;
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
  it('renders each regatta variant, and the engineless prompt equals the explicit none', () => {
    for (const variant of regatta.variants) {
      const prompt = renderVariantPrompt(regatta, variant.slug);
      expect(prompt).toBe(variant.prompt);
      expect(renderVariantPrompt(regatta, variant.slug, 'none')).toBe(prompt);
      expect(prompt).toContain('`/work`');
    }
  });

  it('branches crabber\'s prompt on the engine through the eq helper', () => {
    const none = renderVariantPrompt(crabber, 'base');
    const simple = renderVariantPrompt(crabber, 'base', 'simple-2d');
    const structured = renderVariantPrompt(crabber, 'base', 'structured-2d');
    expect(none).toContain('You build on **no engine**');
    expect(none).not.toContain('documentation ships with the package');
    expect(simple).toContain('You build on the **simple-2d** engine');
    expect(simple).toContain('documentation ships with the package');
    expect(structured).toContain('You build on the **structured-2d** engine');
    expect(new Set([none, simple, structured]).size).toBe(3);
  });

  it('answers 400 for an unknown engine and for one the version does not support', () => {
    expect(statusOf(() => renderVariantPrompt(crabber, 'base', 'unreal'))).toBe(400);
    expect(statusOf(() => renderVariantPrompt(regatta, 'base', 'simple-2d'))).toBe(400);
    expect(statusOf(() => renderVariantPrompt(regatta, 'frenzy'))).toBe(400);
  });

  it('lists the variant\'s seeded specs to the prompt, common first', () => {
    const record = { ...regatta, promptTemplate: '{{#each specs}}{{dest}}|{{path}}|{{name}}\n{{/each}}' };
    const lines = renderVariantPrompt(record, 'fleet').trim().split('\n');
    expect(lines[0]).toBe('specs/overview.md|/work/specs/overview.md|overview');
    expect(lines.at(-1)).toBe('specs/course.md|/work/specs/course.md|course');
    expect(lines).toHaveLength(8);
  });
});

describe('spec rendering', () => {
  it('renders crabber\'s spec set per engine in seed order, templates rendered and others verbatim', async () => {
    const sourceDir = join(EXAMPLE_CATALOG, CRABBER);
    const none = await renderVariantSpecs(crabber, sourceDir, 'base');
    const simple = await renderVariantSpecs(crabber, sourceDir, 'base', 'simple-2d');
    const structured = await renderVariantSpecs(crabber, sourceDir, 'base', 'structured-2d');
    expect(none.map((spec) => spec.dest)).toEqual(crabber.commonSpecs.map((spec) => spec.dest));
    const body = (specs: typeof none, dest: string) => specs.find((spec) => spec.dest === dest)!.body;
    expect(body(none, 'specs/overview.md')).not.toContain('{{');
    expect(body(none, 'specs/overview.md')).toContain('Specification v2.0.0, variant **Base**');
    expect(body(simple, 'specs/overview.md')).toContain('This run builds on the **simple-2d** engine');
    expect(body(none, 'specs/overview.md')).not.toContain('simple-2d');
    // The else-if chain: each engine is told where its debug surface goes.
    expect(body(none, 'specs/debug-surface.md')).toContain('window.__crabber');
    expect(body(simple, 'specs/debug-surface.md')).toContain('as `[state, debug]`');
    expect(body(structured, 'specs/debug-surface.md')).toContain('act on the live world');
    const harbor = none.find((spec) => spec.dest === 'specs/harbor.md')!;
    expect(harbor.template).toBe(false);
    expect(harbor.body).toBe(body(simple, 'specs/harbor.md'));
  });

  it('renders regatta\'s variant specs to their variant dests', async () => {
    const specs = await renderVariantSpecs(regatta, join(EXAMPLE_CATALOG, REGATTA), 'gusts');
    expect(specs.map((spec) => `${spec.source}->${spec.dest}`).slice(-2)).toEqual([
      'specs/wind-shifting.md->specs/wind.md',
      'specs/course-short.md->specs/course.md',
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

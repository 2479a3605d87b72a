import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/db/dialect.js';
import { BACKEND_MIGRATIONS, openDatabase } from '../../src/db/open-database.js';
import type { StoreSchema } from '../../src/db/store-schema.js';
import { modelCatalogStore } from '../../src/models/model-catalog-store.js';
import { FAKE_LOGOS } from '../fakes/fake-logo-server.js';
import { FAKE_SLUGS } from '../fakes/fake-router.js';
import { useModelsBackend } from '../helpers/models-backend.js';
import { bearer } from '../helpers/test-backend.js';

const context = useModelsBackend();

const send = (method: 'POST' | 'PUT', url: string, payload: object) =>
  context.backend.app.inject({ method, url, headers: bearer(context.token), payload });

/** What the console's model form sends on save, field for field. */
function consoleForm(overrides: Record<string, unknown> = {}) {
  return {
    slug: 'claude-sonnet-4',
    name: 'Claude Sonnet 4',
    provider: 'Anthropic',
    aliases: [{ slug: 'anthropic/claude-sonnet-4', harnessFamily: 'openrouter' }, { slug: 'claude-sonnet-4-0', harnessFamily: 'claude' }],
    openrouterSlug: FAKE_SLUGS.allRates,
    providerPin: null,
    nativeQuantization: 'BF16',
    maxInputPrice: null,
    maxOutputPrice: null,
    bannedProviders: [' Cheapo ', '', 'cheapo', 'Z.AI', 'z-ai'],
    unknownQuantizationProviders: ['Vague', '  '],
    listPriceInputPerMtok: 3,
    listPriceCachedInputPerMtok: 0.3,
    listPriceOutputPerMtok: 15,
    listPriceAsOf: '2026-11-01',
    description: 'A fast model.',
    logoSvg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle r="4" onload="alert(1)"/><script>alert(2)</script></svg>',
    providerLogoUrl: null,
    ...overrides,
  };
}

describe('the console’s model form', () => {
  it('is accepted whole (201), with per-token prices, alias items, normalised policy fields and a sanitized logo', async () => {
    const created = await send('POST', '/models', consoleForm());
    expect(created.statusCode, created.body).toBe(201);
    const entry = created.json();
    expect(entry).toMatchObject({
      slug: 'claude-sonnet-4',
      aliases: [{ slug: 'anthropic/claude-sonnet-4', harnessFamily: 'openrouter' }, { slug: 'claude-sonnet-4-0', harnessFamily: 'claude' }],
      openrouterSlug: FAKE_SLUGS.allRates,
      openrouterUrl: `${context.router.url}/${FAKE_SLUGS.allRates}`,
      providerPin: null,
      providerPinSetByHand: false,
      nativeQuantization: 'bf16',
      quantizationFilter: true,
      bannedProviders: ['Cheapo', 'Z.AI'],
      unknownQuantizationProviders: ['Vague'],
      listPrice: { uncachedInput: 0.000003, cachedInput: 3e-7, output: 0.000015 },
      listPriceAsOf: '2026-11-01',
      listPriceSource: 'hand',
    });
    expect(entry.logoSvg).toMatch(/^<svg/);
    expect(entry.logoSvg).not.toMatch(/onload|script|alert/);
  });

  it('re-sent with the same list price keeps its source, and a blank list price (all null) keeps the stored one', async () => {
    await context.backend.store.db.updateTable('models').set({ list_source: 'router' }).where('slug', '=', 'claude-sonnet-4').execute();
    const same = await send('PUT', '/models/claude-sonnet-4', consoleForm());
    expect(same.json()).toMatchObject({ listPriceSource: 'router', listPrice: { output: 0.000015 } });
    const blank = await send('PUT', '/models/claude-sonnet-4', consoleForm({
      listPriceInputPerMtok: null, listPriceCachedInputPerMtok: null, listPriceOutputPerMtok: null, listPriceAsOf: null,
    }));
    expect(blank.json()).toMatchObject({ listPriceSource: 'router', listPrice: { output: 0.000015 } });
  });

  it('a PUT is a whole write: an omitted policy field is cleared', async () => {
    await send('PUT', '/models/claude-sonnet-4', consoleForm({ providerPin: ' Anthropic ', maxInputPrice: 1, maxOutputPrice: 5, quantizationFilter: false }));
    const pinned = (await context.backend.app.models.get('claude-sonnet-4'))!;
    expect(pinned).toMatchObject({ providerPin: 'Anthropic', providerPinSetByHand: true, maxInputPrice: 1, maxOutputPrice: 5, quantizationFilter: false });
    const bare = await send('PUT', '/models/claude-sonnet-4', { name: 'Claude Sonnet 4' });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toMatchObject({
      openrouterSlug: null, providerPinSetByHand: false, nativeQuantization: null, quantizationFilter: true,
      maxInputPrice: null, maxOutputPrice: null, bannedProviders: [], unknownQuantizationProviders: [], logoSvg: null,
      listPriceSource: 'router',
    });
    // No routing id left: the slug is not author/name.
    expect(bare.json().openrouterUrl).toBeNull();
  });

  it('refuses bad policy fields with 422 naming the field and the value', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ nativeQuantization: 'q4_k_m' }, 'nativeQuantization must be one of fp32, bf16, fp16, fp8, int8, fp6, fp4, int4; got "q4_k_m".'],
      [{ maxInputPrice: 1 }, 'maxInputPrice and maxOutputPrice are set together or not at all; maxOutputPrice is missing.'],
      [{ maxInputPrice: 0, maxOutputPrice: 2 }, 'maxInputPrice must be greater than 0 (USD per Mtok); got 0.'],
      [{ openrouterSlug: 'not a slug' }, 'openrouterSlug must look like "author/name"'],
      [{ logoSvg: '<!DOCTYPE svg [<!ENTITY e "x">]><svg>&e;</svg>' }, 'logoSvg must not carry a DOCTYPE or ENTITY declaration.'],
      [{ logoSvg: '<p>hello</p>' }, 'logoSvg must be SVG markup with a single <svg> root element.'],
      [{ logoSvg: null, providerLogoUrl: 'https://elsewhere.example/acme.svg' }, 'providerLogoUrl must point inside the logo library'],
    ];
    for (const [fields, message] of cases) {
      const response = await send('POST', '/models', consoleForm({ slug: 'acme/refused', ...fields }));
      expect(response.statusCode, JSON.stringify(fields)).toBe(422);
      expect(response.json().error.message).toContain(message);
    }
    expect(await context.backend.app.models.get('acme/refused')).toBeNull();
    const unknown = await send('POST', '/models', consoleForm({ slug: 'acme/refused', colour: 'red' }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('colour');
  });

  it('fetches providerLogoUrl from the logo library when logoSvg is empty, and sanitizes it', async () => {
    const response = await send('POST', '/models', consoleForm({ slug: 'acme/logo', logoSvg: null, providerLogoUrl: new URL(FAKE_LOGOS.svg, context.logos.url).href }));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().logoSvg).toMatch(/^<svg[^>]*viewBox="0 0 24 24"/);
    const notSvg = await send('POST', '/models', consoleForm({ slug: 'acme/logo-png', logoSvg: null, providerLogoUrl: new URL(FAKE_LOGOS.png, context.logos.url).href }));
    expect(notSvg.statusCode).toBe(422);
    expect(notSvg.json().error.message).toContain('providerLogoUrl');
  });
});

describe('stored entries from before the revision', () => {
  it('are migrated: alias items gain `slug`, and a stored pin counts as set by hand', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evb-models-migration-'));
    const older = join(dir, 'migrations');
    try {
      // The migrations as they stood before the revision, then the old-shape row.
      mkdirSync(older);
      for (const name of readdirSync(BACKEND_MIGRATIONS).filter((file) => file < '0021')) copyFileSync(join(BACKEND_MIGRATIONS, name), join(older, name));
      const file = join(dir, 'store.sqlite');
      const before = openDatabase(file, older);
      before.prepare(
        `INSERT INTO models (slug, aliases, provider_pin, created_at, updated_at) VALUES ('acme/old', '[{"alias":"old-1","harnessFamily":"claude"}]', 'Acme', 'x', 'x')`,
      ).run();
      before.prepare(`INSERT INTO models (slug, created_at, updated_at) VALUES ('acme/bare', 'x', 'x')`).run();
      before.close();
      const after = openDatabase(file);
      const store = modelCatalogStore(sqliteStore<StoreSchema>(after));
      expect(await store.get('acme/old')).toMatchObject({ aliases: [{ slug: 'old-1', harnessFamily: 'claude' }], providerPin: 'Acme', providerPinSetByHand: true });
      expect(await store.get('acme/bare')).toMatchObject({ aliases: [], providerPin: null, providerPinSetByHand: false, bannedProviders: [], quantizationFilter: true });
      after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/errors.js';
import {
  fillMissingListPrice,
  refuseUncatalogued,
  type ListPriceFields,
} from '../../src/models/list-price-from-router.js';
import { createRouterClient, type RouterClient } from '../../src/models/router-client.js';
import { SECOND } from '../../src/time.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';

const KEY = 'sk-or-v1-list-price-key';
const NOW = new Date('2025-06-30T21:15:00Z');

/** A curated entry as the catalog store holds it, with a field this rule must not touch. */
function entry(slug: string, overrides: Partial<ListPriceFields> = {}): ListPriceFields & { name: string } {
  return { slug, name: 'Curated name', listPrice: null, listPriceAsOf: null, listPriceSource: null, ...overrides };
}

describe('fillMissingListPrice', () => {
  let router: FakeRouter;
  let client: RouterClient;

  beforeAll(async () => {
    router = await startFakeRouter({ requireKey: KEY });
    client = createRouterClient({ baseUrl: router.url, apiKey: KEY, timeoutMs: 2 * SECOND });
  });
  afterAll(async () => {
    await router.close();
  });
  beforeEach(async () => {
    await router.normal();
    router.requests.length = 0;
  });

  it('keeps a hand-set list price and does not ask the provider', async () => {
    const priced = entry(FAKE_SLUGS.allRates, {
      listPrice: { inputPerMtok: 2.5, cachedInputPerMtok: 0.25, outputPerMtok: 12 },
      listPriceAsOf: '2025-01-15',
      listPriceSource: 'hand',
    });
    const result = await fillMissingListPrice(priced, client, NOW);
    expect(result).toEqual({ refused: false, filled: false, entry: priced });
    expect(router.requests).toHaveLength(0);
  });

  it("fills all three rates from the official endpoint, dated today and marked 'router'", async () => {
    const result = await fillMissingListPrice(entry(FAKE_SLUGS.allRates), client, NOW);
    expect(result).toEqual({
      refused: false,
      filled: true,
      entry: {
        slug: FAKE_SLUGS.allRates,
        name: 'Curated name',
        listPrice: { inputPerMtok: 3, cachedInputPerMtok: 0.3, outputPerMtok: 15 },
        listPriceAsOf: '2025-06-30',
        listPriceSource: 'router',
      },
    });
  });

  it('fills with a null cached rate when the official endpoint lists none', async () => {
    const result = await fillMissingListPrice(entry(FAKE_SLUGS.noCachedRate), client, NOW);
    expect(result.refused).toBe(false);
    expect(!result.refused && result.entry.listPrice).toEqual({ inputPerMtok: 0.25, cachedInputPerMtok: null, outputPerMtok: 0.95 });
  });

  it('dates the fill in UTC', async () => {
    const result = await fillMissingListPrice(entry(FAKE_SLUGS.allRates), client, new Date('2025-01-01T00:30:00+02:00'));
    expect(!result.refused && result.entry.listPriceAsOf).toBe('2024-12-31');
  });

  it('refuses, naming the model, when only third parties serve it', async () => {
    expect(await fillMissingListPrice(entry(FAKE_SLUGS.noOfficialEndpoint), client, NOW)).toEqual({
      refused: true,
      reason: `The routing provider lists no rate for ${FAKE_SLUGS.noOfficialEndpoint}: no endpoint is served by its author, nousresearch.`,
    });
  });

  it('refuses when the official endpoint lists no output rate', async () => {
    expect(await fillMissingListPrice(entry(FAKE_SLUGS.noOutputRate), client, NOW)).toEqual({
      refused: true,
      reason: `The routing provider lists no rate for ${FAKE_SLUGS.noOutputRate}: Acme's endpoint has no output rate.`,
    });
  });

  it('refuses when the provider does not list the model', async () => {
    expect(await fillMissingListPrice(entry(FAKE_SLUGS.unlisted), client, NOW)).toEqual({
      refused: true,
      reason: `The routing provider lists no rate for ${FAKE_SLUGS.unlisted}: it does not list the model.`,
    });
  });

  it('lets an unreachable provider fail the launch with 502 instead of refusing it', async () => {
    await router.down();
    const error = await fillMissingListPrice(entry(FAKE_SLUGS.allRates), client, NOW).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ statusCode: 502, code: 'upstream_unavailable' });
  });

  it('lets a missing key surface as router_key_missing', async () => {
    const keyless = createRouterClient({ baseUrl: router.url, timeoutMs: 2 * SECOND });
    const error = await fillMissingListPrice(entry(FAKE_SLUGS.allRates), keyless, NOW).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ statusCode: 503, code: 'router_key_missing' });
  });
});

describe('refuseUncatalogued', () => {
  it('refuses naming the model and what to do', () => {
    expect(refuseUncatalogued('acme/ghost-1')).toEqual({
      refused: true,
      reason: 'The model catalog has no entry for acme/ghost-1; add it to the catalog before launching it.',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { modelCatalogStore } from '../../src/models/model-catalog-store.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { insertRun } from '../helpers/store-rows.js';

const stores = engineStores();

/** Rates no binary fraction holds exactly: a store that rounds them through text or float32 changes them. */
const RATES = { inputPerMtok: 0.1, cachedInputPerMtok: 0.30000000000000004, outputPerMtok: 15.000000000000002 };

describe.each(ENGINES)('the model catalog store on %s', (engine) => {
  it('lists curated entries and the models runs name, by slug, with their run counts', async () => {
    const store = await stores.fresh(engine);
    const models = modelCatalogStore(store);
    await models.create({ slug: 'vendor/b', name: 'B' });
    await models.create({ slug: 'Vendor/a' });
    await insertRun(store, { id: 'r1', modelId: 'vendor/b' });
    await insertRun(store, { id: 'r2', modelId: 'vendor/b' });
    await insertRun(store, { id: 'r3', modelId: 'other/x' });
    const listed = await models.list();
    expect(listed.map((entry) => [entry.slug, entry.curated, entry.runCount])).toEqual([
      ['other/x', false, 1], ['Vendor/a', true, 0], ['vendor/b', true, 2],
    ].sort(([a], [b]) => String(a).localeCompare(String(b))));
    expect(await models.curatedSlugs()).toEqual(['Vendor/a', 'vendor/b']);
    expect(await models.get('other/x')).toMatchObject({ curated: false, runCount: 1 });
    expect(await models.get('nobody/none')).toBeNull();
    await expect(models.create({ slug: 'vendor/b' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('keeps list prices and billed rates as exact doubles, and appends only a changed billed rate', async () => {
    const models = modelCatalogStore(await stores.fresh(engine));
    const created = await models.create({
      slug: 'vendor/priced', listPriceInputPerMtok: RATES.inputPerMtok, listPriceCachedInputPerMtok: RATES.cachedInputPerMtok,
      listPriceOutputPerMtok: RATES.outputPerMtok, listPriceAsOf: '2026-11-01',
    });
    expect(created.listPrice).toEqual(RATES);
    expect(created.listPriceSource).toBe('hand');
    expect(await models.hasBilledRate('vendor/priced')).toBe(false);
    expect(await models.observeBilledRate('vendor/priced', RATES, 'refresh', new Date('2026-11-02T00:00:00Z'))).toBe(true);
    expect(await models.observeBilledRate('vendor/priced', RATES, 'refresh')).toBe(false);
    const cheaper = { ...RATES, outputPerMtok: 1e-7 };
    expect(await models.observeBilledRate('vendor/priced', cheaper, 'run-completion', new Date('2026-11-03T00:00:00Z'))).toBe(true);
    const entry = (await models.get('vendor/priced'))!;
    expect(entry.priceHistory).toEqual([
      { observedAt: '2026-11-02T00:00:00.000Z', ...RATES, source: 'refresh' },
      { observedAt: '2026-11-03T00:00:00.000Z', ...cheaper, source: 'run-completion' },
    ]);
    expect(entry.price).toEqual(cheaper);
    expect(await models.hasBilledRate('vendor/priced')).toBe(true);

    await models.setRouterListPrice('vendor/priced', { inputPerMtok: 2.5, cachedInputPerMtok: 2.5, outputPerMtok: 0.1 }, '2026-11-04');
    expect(await models.get('vendor/priced')).toMatchObject({
      listPrice: { inputPerMtok: 2.5, cachedInputPerMtok: 2.5, outputPerMtok: 0.1 }, listPriceSource: 'router', listPriceAsOf: '2026-11-04',
    });
  });

  it('renames on update, refuses a taken or unknown slug, records the observed provider and removes', async () => {
    const models = modelCatalogStore(await stores.fresh(engine));
    await models.create({ slug: 'vendor/one' });
    await models.create({ slug: 'vendor/two' });
    await expect(models.update('vendor/one', { slug: 'vendor/two' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(models.update('vendor/none', { name: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    const renamed = await models.update('vendor/one', { slug: 'vendor/uno', name: 'Uno', providerPin: null });
    expect(renamed).toMatchObject({ slug: 'vendor/uno', name: 'Uno', providerPin: null, providerPinSetByHand: false });
    expect(await models.get('vendor/one')).toBeNull();

    await models.observeOfficialProvider('vendor/uno', 'Acme');
    expect((await models.get('vendor/uno'))!.providerPin).toBe('Acme');
    await models.observeOfficialProvider('vendor/uno', null);
    expect((await models.get('vendor/uno'))!.providerPin).toBeNull();

    await models.remove('vendor/uno');
    await expect(models.remove('vendor/uno')).rejects.toMatchObject({ code: 'not_found' });
    expect(await models.curatedSlugs()).toEqual(['vendor/two']);
  });
});

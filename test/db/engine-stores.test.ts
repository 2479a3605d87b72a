import { describe, expect, it } from 'vitest';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';

const stores = engineStores();

describe.each(ENGINES)('a fresh %s store', (engine) => {
  it('is migrated and empty', async () => {
    const store = await stores.fresh(engine);
    expect(store.engine).toBe(engine);
    const rows = await store.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(rows.n).toBe(0);
  });
});

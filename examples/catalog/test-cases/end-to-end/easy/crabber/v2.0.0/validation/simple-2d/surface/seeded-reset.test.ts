// surface.seeded-reset: the same seed and inputs give the same gull flights.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('the same seed and inputs give the same gull flights', async () => {
  const run = async () => {
    await harbor.call('reset', 42);
    await harbor.call('posePot', 3, 3, 6);
    await harbor.call('posePot', 20, 5, 6);
    await harbor.call('advance', 600);
    return (await harbor.read()).gulls;
  };
  expect(await run()).toEqual(await run());
});

// surface.fixed-step: advance(n) runs exactly n steps of 1/60 s.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('advance(n) runs exactly n steps of 1/60 s', async () => {
  const before = (await harbor.read()).clock;
  await harbor.call('advance', 60);
  expect(before - (await harbor.read()).clock).toBeCloseTo(1, 5);
  await harbor.call('advance', 30);
  expect(before - (await harbor.read()).clock).toBeCloseTo(1.5, 5);
});

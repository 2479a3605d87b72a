// pots.soak: a pot gains a crab every 3 s, up to 6.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('a pot gains a crab every 3 s, up to 6', async () => {
  await harbor.call('poseBoat', 12, 8);
  await harbor.press(' ');
  await harbor.call('advance', 3 * 60 * 2);
  expect((await harbor.read()).pots[0]!.crabs).toBe(2);
  await harbor.call('advance', 3 * 60 * 10);
  expect((await harbor.read()).pots[0]!.crabs).toBe(6);
  await harbor.page.screenshot({ path: 'outputs/floats.png' });
});

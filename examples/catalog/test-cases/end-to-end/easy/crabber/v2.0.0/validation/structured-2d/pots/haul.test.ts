// pots.haul: hauling moves the crabs to the hold and the pot aboard.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('hauling moves the crabs to the hold and the pot aboard', async () => {
  await harbor.call('posePot', 10, 10, 4);
  await harbor.call('poseBoat', 10, 10);
  const aboard = (await harbor.read()).potsAboard;
  await harbor.press(' ');
  const reading = await harbor.read();
  expect(reading.hold).toBe(4);
  expect(reading.pots).toEqual([]);
  expect(reading.potsAboard).toBe(aboard + 1);
});

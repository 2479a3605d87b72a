// boat.hold-limit: a haul that would overfill the hold leaves the rest in the pot.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('a haul that would overfill the hold leaves the rest in the pot', async () => {
  for (const col of [4, 5, 6]) await harbor.call('posePot', col, 6, 5);
  for (const col of [4, 5, 6]) {
    await harbor.call('poseBoat', col, 6);
    await harbor.press(' ');
  }
  const reading = await harbor.read();
  expect(reading.hold).toBe(12);
  expect(reading.pots).toEqual([{ col: 6, row: 6, crabs: 3 }]);
});

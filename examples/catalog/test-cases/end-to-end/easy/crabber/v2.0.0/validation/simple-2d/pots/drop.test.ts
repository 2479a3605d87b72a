// pots.drop: space drops a pot on open water, never on the quay.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('space drops a pot on open water, never on the quay', async () => {
  await harbor.call('poseBoat', 9, 9);
  await harbor.press(' ');
  expect((await harbor.read()).pots).toEqual([{ col: 9, row: 9, crabs: 0 }]);
  await harbor.call('poseBoat', 9, 15);
  await harbor.press(' ');
  expect((await harbor.read()).potsAboard).toBe(3);
});

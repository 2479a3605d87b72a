// gulls.strip: a gull lands on the fullest unwatched pot and empties it a crab a second.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('a gull lands on the fullest unwatched pot and empties it a crab a second', async () => {
  await harbor.call('poseBoat', 1, 14);
  await harbor.call('posePot', 25, 2, 6);
  await harbor.call('posePot', 24, 8, 2);
  await harbor.call('advance', 5 * 60);
  expect((await harbor.read()).gulls.filter((gull) => gull.landed)).toEqual([{ col: 25, row: 2, landed: true }]);
  await harbor.call('advance', 3 * 60);
  expect((await harbor.read()).pots.find((pot) => pot.col === 25)!.crabs).toBeLessThanOrEqual(3);
});

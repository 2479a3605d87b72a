// boat.grid-moves: each press moves one tile, and the quay edge refuses.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('each press moves one tile, and the quay edge refuses', async () => {
  await harbor.call('poseBoat', 0, 14);
  await harbor.press('ArrowUp');
  await harbor.press('ArrowRight');
  expect((await harbor.read()).boat).toMatchObject({ col: 1, row: 13 });
  await harbor.press('ArrowLeft');
  await harbor.press('ArrowLeft');
  expect((await harbor.read()).boat).toMatchObject({ col: 0, row: 13 });
});

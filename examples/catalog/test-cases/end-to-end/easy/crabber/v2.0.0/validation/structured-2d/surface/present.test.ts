// surface.present: a boat posed through the surface reads back where it was put.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('a boat posed through the surface reads back where it was put', async () => {
  await harbor.call('poseBoat', 7, 4);
  expect((await harbor.read()).boat).toMatchObject({ col: 7, row: 4 });
  await harbor.page.screenshot({ path: 'outputs/posed.png' });
});

// helm.thrust: 160 units/s² ahead, capped at 180 units/s; 40 % decay per second with no throttle.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harness.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('accelerates at 160 units/s² and stops at 180 units/s', async () => {
  await harbor.call('setTug', { x: 200, y: 400, heading: 90, speed: 0 });
  await harbor.call('press', 'ahead');
  await harbor.call('advance', 30);
  expect((await harbor.snapshot()).tug.speed).toBeCloseTo(80, 0);
  await harbor.call('advance', 120);
  expect((await harbor.snapshot()).tug.speed).toBeCloseTo(180, 0);
  await harbor.call('release', 'ahead');
});

it('loses 40 % of its speed each second with the throttle released', async () => {
  await harbor.call('setTug', { x: 200, y: 400, heading: 90, speed: 100 });
  await harbor.call('advance', 60);
  expect((await harbor.snapshot()).tug.speed).toBeCloseTo(60, 0);
});

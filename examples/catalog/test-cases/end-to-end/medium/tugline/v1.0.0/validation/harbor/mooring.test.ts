// harbor.mooring: a barge at rest wholly inside its own berth moors after one second and scores 200 (+100 if young).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harness.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('moors a barge resting in its own berth after one second', async () => {
  await harbor.call('spawnBarge', { berth: 3, x: 780, y: 132, heading: 0, vx: 0, vy: 0 });
  await harbor.call('advance', 59);
  expect((await harbor.snapshot()).barges[0]!.moored).toBe(false);
  await harbor.call('advance', 2);
  const snapshot = await harbor.snapshot();
  expect(snapshot.barges[0]!.moored).toBe(true);
  expect(snapshot.score).toBe(300);
  await harbor.page.screenshot({ path: 'outputs/moored.png' });
});

it('does not moor a barge in the wrong berth', async () => {
  await harbor.call('clearBarges');
  await harbor.call('spawnBarge', { berth: 1, x: 540, y: 132, heading: 0, vx: 0, vy: 0 });
  await harbor.call('advance', 180);
  expect((await harbor.snapshot()).barges[0]!.moored).toBe(false);
});

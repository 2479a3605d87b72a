// run.shift-ends: the shift ends at 240 s, or on the third lost barge.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harness.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('ends the shift when the clock runs out', async () => {
  await harbor.call('advance', 240 * 60 - 1);
  expect((await harbor.snapshot()).screen).toBe('shift');
  await harbor.call('advance', 1);
  expect((await harbor.snapshot()).screen).toBe('shift-over');
  await harbor.page.screenshot({ path: 'outputs/shift-over.png' });
});

it('ends the shift on the third lost barge', async () => {
  await harbor.call('reset', { seed: 2 });
  await harbor.call('startShift');
  await harbor.call('setArrivals', false);
  for (const y of [320, 420, 520]) await harbor.call('spawnBarge', { berth: 1, x: 1340, y, heading: 90, vx: 40, vy: 0 });
  await harbor.call('advance', 60);
  const snapshot = await harbor.snapshot();
  expect(snapshot.lost).toBe(3);
  expect(snapshot.screen).toBe('shift-over');
});

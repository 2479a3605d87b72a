// surface.present: every operation exists, and a posed tug reads back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harness.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('exposes every operation the spec lists', async () => {
  const names = await harbor.page.evaluate(() => Object.keys((window as any).__tugline));
  for (const name of ['reset', 'startShift', 'setAutoStep', 'advance', 'press', 'release', 'setTug', 'spawnBarge', 'clearBarges', 'setCurrent', 'setArrivals', 'snapshot']) {
    expect(names).toContain(name);
  }
});

it('reads a posed tug back, and advancing moves it', async () => {
  await harbor.call('setTug', { x: 400, y: 400, heading: 90, speed: 60 });
  expect((await harbor.snapshot()).tug).toMatchObject({ x: 400, y: 400, heading: 90 });
  await harbor.call('advance', 60);
  const { tug } = await harbor.snapshot();
  expect(tug.x).toBeGreaterThan(430);
  await harbor.page.screenshot({ path: 'outputs/posed.png' });
});

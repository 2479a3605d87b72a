// run.shift-clock: the shift ends after 180 s on the result screen.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('the shift ends after 180 s on the result screen', async () => {
  await harbor.call('advance', 179 * 60);
  expect((await harbor.read()).screen).toBe('play');
  await harbor.call('advance', 60);
  expect((await harbor.read()).screen).toBe('result');
  await harbor.page.screenshot({ path: 'outputs/result.png' });
});

// presentation.hud: each HUD readout changes when its value does.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('each HUD readout changes when its value does', async () => {
  const hud = () => harbor.page.screenshot({ clip: { x: 0, y: 0, width: 1200, height: 40 } });
  const before = await hud();
  await harbor.call('poseBoat', 5, 5);
  await harbor.press(' ');
  expect((await hud()).equals(before)).toBe(false);
});

// presentation.sprites: the boat is drawn from the seeded frames, facing its last move.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harbor.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('the boat is drawn from the seeded frames, facing its last move', async () => {
  await harbor.call('poseBoat', 14, 7);
  const shots: Buffer[] = [];
  for (const key of ['ArrowUp', 'ArrowRight', 'ArrowDown', 'ArrowLeft']) {
    await harbor.press(key);
    shots.push(await harbor.page.screenshot({ clip: { x: 520, y: 200, width: 160, height: 200 } }));
  }
  expect(new Set(shots.map((shot) => shot.toString('base64'))).size).toBe(4);
  await harbor.page.screenshot({ path: 'outputs/facing.png' });
});

// harbor.push: a tug driving into a barge moves it, a quarter as much as its own mass would, and never passes through it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarbor, type Harbor } from '../support/harness.js';

let harbor: Harbor;
beforeAll(async () => { harbor = await openHarbor(); });
afterAll(() => harbor.close());

it('pushes the barge ahead of it without tunnelling', async () => {
  const id = await harbor.call<number>('spawnBarge', { berth: 2, x: 640, y: 300, heading: 90, vx: 0, vy: 0 });
  await harbor.call('setTug', { x: 640, y: 420, heading: 0, speed: 180 });
  await harbor.call('press', 'ahead');
  for (let tick = 0; tick < 90; tick += 1) {
    await harbor.call('advance', 1);
    const { tug, barges } = await harbor.snapshot();
    const barge = barges.find((candidate) => candidate.id === id)!;
    // Heading north, the tug's bow is 28 units ahead of its centre; the barge lies
    // east-west, so its south side is 22 units below its centre. 1 unit of overlap is allowed.
    expect(tug.y - 28).toBeGreaterThanOrEqual(barge.y + 22 - 1);
  }
  const barge = (await harbor.snapshot()).barges.find((candidate) => candidate.id === id)!;
  expect(barge.y).toBeLessThan(300);
  await harbor.call('release', 'ahead');
  await harbor.page.screenshot({ path: 'outputs/shove.png' });
});

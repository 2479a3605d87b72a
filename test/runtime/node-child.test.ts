import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startNodeChild } from '../../src/runtime/node-child.js';

// Child entry points run compiled code: `npm test` builds dist/ first.
const nodeChild = fileURLToPath(new URL('../../dist/src/runtime/node-child.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'evb-node-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child that reports progress every `everyMs` for `forMs`, then says it serves when `serves`, else stays silent. */
function entry(name: string, { everyMs, forMs, serves }: { everyMs: number; forMs: number; serves: boolean }): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `
    import { setTimeout as sleep } from 'node:timers/promises';
    import { announceProgress, announceReady } from ${JSON.stringify(nodeChild)};
    const started = Date.now();
    for (let step = 1; Date.now() - started < ${forMs}; step++) {
      // announceProgress sends at most once a second; the test's timeout is shorter, so send directly too.
      announceProgress('step ' + step);
      process.send({ progress: 'step ' + step });
      await sleep(${everyMs});
    }
    if (${serves}) announceReady('http://127.0.0.1:1');
    setInterval(() => {}, 1000);
  `);
  return file;
}

describe('a supervised child that starts slowly', () => {
  it('is waited for while it reports progress, past the ready timeout', async () => {
    const child = await startNodeChild(entry('slow', { everyMs: 100, forMs: 1200, serves: true }), { label: 'the slow child', env: process.env, readyTimeoutMs: 400 });
    expect(child.url).toBe('http://127.0.0.1:1');
    await child.stop();
  });

  it('is stopped once it goes silent for the timeout, naming its last progress', async () => {
    const started = Date.now();
    const failure = await startNodeChild(entry('stalls', { everyMs: 100, forMs: 300, serves: false }), { label: 'the stalling child', env: process.env, readyTimeoutMs: 400 })
      .catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/^the stalling child did not start within 0\.4 s of its last progress \(step \d+\)$/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('is stopped after the timeout when it never reports', async () => {
    const failure = await startNodeChild(entry('silent', { everyMs: 100, forMs: 0, serves: false }), { label: 'the silent child', env: process.env, readyTimeoutMs: 300 })
      .catch((error: Error) => error);
    expect((failure as Error).message).toBe('the silent child did not start within 0.3 s');
  });
});

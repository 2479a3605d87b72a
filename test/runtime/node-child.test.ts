import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { startNodeChild } from '../../src/runtime/node-child.js';
import { until } from '../helpers/until.js';

// Child entry points run compiled code: `npm test` builds dist/ first.
const nodeChild = fileURLToPath(new URL('../../dist/src/runtime/node-child.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'evb-node-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child that reports progress every `everyMs` for `forMs`, then says it serves when `serves`, else stays silent. */
function entry(name: string, { everyMs, forMs, serves }: { everyMs: number; forMs: number; serves: boolean }): string {
  const file = join(dir, `${name}.mjs`);
  // The first progress goes out before anything is loaded, so a busy machine's slow start
  // of the module graph does not read as silence.
  writeFileSync(file, `
    if (${forMs} > 0) process.send({ progress: 'step 0' });
    const { setTimeout: sleep } = await import('node:timers/promises');
    const { announceProgress, announceReady } = await import(${JSON.stringify(nodeChild)});
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
    const child = await startNodeChild(entry('slow', { everyMs: 100, forMs: 2500, serves: true }), { label: 'the slow child', env: process.env, readyTimeoutMs: 1000 });
    expect(child.url).toBe('http://127.0.0.1:1');
    await child.stop();
  });

  it('is stopped once it goes silent for the timeout, naming its last progress', async () => {
    const started = Date.now();
    const failure = await startNodeChild(entry('stalls', { everyMs: 100, forMs: 300, serves: false }), { label: 'the stalling child', env: process.env, readyTimeoutMs: 1000 })
      .catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/^the stalling child did not start within 1 s of its last progress \(step \d+\)$/);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('is stopped after the timeout when it never reports', async () => {
    const failure = await startNodeChild(entry('silent', { everyMs: 100, forMs: 0, serves: false }), { label: 'the silent child', env: process.env, readyTimeoutMs: 300 })
      .catch((error: Error) => error);
    expect((failure as Error).message).toBe('the silent child did not start within 0.3 s');
  });
});

/** Forks `file` with a channel, its standard error collected. */
function forkCollectingStderr(file: string) {
  const child = fork(file, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

describe('a supervised child whose parent goes away while it starts', () => {
  it('says it serves into the closed channel without dying of it', async () => {
    const file = join(dir, 'orphaned.mjs');
    writeFileSync(file, `
      import { announceProgress, announceReady } from ${JSON.stringify(nodeChild)};
      process.once('message', () => {
        process.send('heard');
        // Busy while the parent closes the channel, so the close is not seen before the sends.
        const until = Date.now() + 300;
        while (Date.now() < until);
        announceProgress('almost');
        announceReady('http://127.0.0.1:1');
      });
    `);
    const { child, stderr } = forkCollectingStderr(file);
    await once(child, 'spawn');
    child.send('go');
    await once(child, 'message');
    child.disconnect();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr()).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});

describe('a supervised child that asks to stop with its parent only after the parent left', () => {
  it('stops at once', async () => {
    const file = join(dir, 'late.mjs');
    writeFileSync(file, `
      import { exitWithParent } from ${JSON.stringify(nodeChild)};
      // Kept alive, as a booting service is, and asking only once the channel is closed.
      setInterval(() => {}, 1000);
      const wait = setInterval(() => {
        if (process.connected) return;
        clearInterval(wait);
        exitWithParent((reason) => {
          console.error('stopping: ' + reason);
          process.exit(0);
        });
      }, 20);
    `);
    const { child, stderr } = forkCollectingStderr(file);
    try {
      await once(child, 'spawn');
      child.disconnect();
      const exited = once(child, 'exit').then(([code]) => code as number | null);
      const outcome = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 5 s'), 5000))]);
      expect(outcome).toBe(0);
      expect(stderr()).toContain('stopping: its parent process is gone');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

const hasSetpriv = ['/usr/bin/setpriv', '/bin/setpriv'].some((path) => existsSync(path));

describe.skipIf(!hasSetpriv)('a child started with a parent death signal (needs setpriv)', () => {
  it('is killed by the kernel when its parent dies by SIGKILL, even while stopped', async () => {
    const serving = entry('serving', { everyMs: 10, forMs: 0, serves: true });
    const parentFile = join(dir, 'parent.mjs');
    writeFileSync(parentFile, `
      import { startNodeChild } from ${JSON.stringify(nodeChild)};
      const child = await startNodeChild(${JSON.stringify(serving)}, { label: 'the child', env: process.env, parentDeathSignal: 'KILL' });
      process.kill(child.pid, 'SIGSTOP');
      process.send(child.pid);
      setInterval(() => {}, 1000);
    `);
    const parent = fork(parentFile, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const [childPid] = (await once(parent, 'message')) as [number];
    expect(alive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    // A stopped process acts on no signal but SIGKILL: the one a bench's paused layouts need.
    await until(() => !alive(childPid), 5000, 'the stopped child to die with its parent');
  });
});

/** Whether `pid` runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

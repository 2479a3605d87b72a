import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { watchCommand } from '../../src/cli/watch-command.js';
import type { CliIo } from '../../src/cli/cli-io.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const ROOT = resolve(__dirname, '../..');
const EXAMPLES = join(ROOT, 'examples/catalog');

/** A checkout of two example versions that render nothing, plus one whose manifest is broken. */
async function smallCatalog(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cli-catalog-'));
  await cp(join(EXAMPLES, 'game-jams/low-tide'), join(dir, 'game-jams/low-tide'), { recursive: true });
  await cp(join(EXAMPLES, 'test-cases/end-to-end/medium/tugline'), join(dir, 'test-cases/end-to-end/medium/tugline'), { recursive: true });
  return dir;
}

async function breakOneVersion(catalog: string) {
  const broken = join(catalog, 'test-cases/end-to-end/easy/cracked/v1.0.0');
  await mkdir(broken, { recursive: true });
  await writeFile(join(broken, 'test-case.toml'), 'slug = "cracked"\nname = "Cracked\n');
}

class Capture extends Writable {
  text = '';
  constructor(readonly isTTY = false, readonly columns = 100) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

function io(overrides: { tty?: boolean; env?: NodeJS.ProcessEnv; signal?: AbortSignal; cwd?: string } = {}) {
  const stdout = new Capture(overrides.tty ?? false);
  const stderr = new Capture();
  const value: CliIo = {
    stdout,
    stderr,
    env: overrides.env ?? {},
    cwd: overrides.cwd ?? tmpdir(),
    signal: overrides.signal ?? new AbortController().signal,
  };
  return { io: value, stdout, stderr };
}

let backend: TestBackend;
let url: string;
let catalog: string;

beforeAll(async () => {
  catalog = await smallCatalog();
  backend = await startTestBackend({ CATALOG_DIR: catalog }, { pricedModels: ['acme/coder'] });
  url = await backend.app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await backend.close();
  await rm(catalog, { recursive: true, force: true });
});

describe('eval-backend ingest', () => {
  it('prints one plain line per version under CI, a summary table, and exits 0', async () => {
    const run = io({ tty: true, env: { CI: 'true' } });
    const code = await runCli(['ingest', '--url', url, '--catalog-version', 'ci-1'], run.io);
    expect(run.stderr.text).toBe('');
    expect(code).toBe(0);
    expect(run.stdout.text).toMatch(/^Ingesting the whole catalog \(catalog version ci-1\)/);
    expect(run.stdout.text).toMatch(/\[\d\/2\] ingested low-tide@v1\.0\.0/);
    expect(run.stdout.text).toMatch(/\[\d\/2\] ingested tugline@v1\.0\.0/);
    expect(run.stdout.text).toMatch(/ingested\s+skipped\s+failed\s+pruned\s+rendered references\s+blocked URLs\s+warnings\n[- ]+\n2\s+0\s+0\s/);
    expect(run.stdout.text).not.toContain('\u001b[');
  });

  it('sends replaceCatalog with --replace-catalog, and says so', async () => {
    const run = io({ env: { CI: 'true' } });
    expect(await runCli(['ingest', '--url', url, '--replace-catalog', '--no-catalog-version'], run.io)).toBe(0);
    expect(run.stdout.text).toMatch(/^Ingesting the whole catalog \(replacing the stored catalog\)/);
    expect(run.stdout.text).toMatch(/\n0\s+2\s+0\s/);
  });

  it('draws a progress bar on a terminal and ends with the same summary', async () => {
    const run = io({ tty: true });
    const code = await runCli(['ingest', '--url', url, '--force', '--no-catalog-version'], run.io);
    expect(code).toBe(0);
    // cli-progress redraws the bar in place with cursor escapes, naming the current version.
    expect(run.stdout.text).toMatch(/\u001b\[\d*G.*[=-]{10,}.*2\/2 (low-tide|tugline)@v1\.0\.0/);
    expect(run.stdout.text).not.toMatch(/\[\d\/2\] ingested/);
    expect(run.stdout.text).toMatch(/\n2\s+0\s+0\s/);
  });

  it('defaults the catalog version to the checkout\'s git HEAD, so a second run reuses the store', async () => {
    const git = promisify(execFile);
    const checkout = await mkdtemp(join(tmpdir(), 'cli-git-'));
    await git('git', ['init', '-q'], { cwd: checkout });
    await git('git', ['-c', 'user.email=ci@example.invalid', '-c', 'user.name=CI', 'commit', '-q', '--allow-empty', '-m', 'catalog'], { cwd: checkout });
    const head = (await git('git', ['rev-parse', 'HEAD'], { cwd: checkout })).stdout.trim();
    const first = io({ cwd: checkout });
    expect(await runCli(['ingest', '--url', url], first.io)).toBe(0);
    expect(first.stdout.text).toContain(`catalog version ${head}`);
    const second = io({ cwd: checkout });
    expect(await runCli(['ingest', '--url', url], second.io)).toBe(0);
    expect(second.stdout.text).toMatch(/unchanged low-tide@v1\.0\.0/);
    expect(second.stdout.text).toMatch(/\n0\s+2\s+0\s/);
    await rm(checkout, { recursive: true, force: true });
  });

  it('exits 1 when a version fails, naming its file and reason on stderr', async () => {
    await breakOneVersion(catalog);
    try {
      const run = io();
      const code = await runCli(['ingest', '--url', url, '--no-catalog-version'], run.io);
      expect(code).toBe(1);
      expect(run.stderr.text).toMatch(/^FAILED cracked@v1\.0\.0: .*test-case\.toml/m);
      expect(run.stdout.text).toMatch(/failed\s+cracked@v1\.0\.0/);
      expect(run.stdout.text).toMatch(/\n\d\s+\d\s+1\s/);
    } finally {
      await rm(join(catalog, 'test-cases/end-to-end/easy/cracked'), { recursive: true, force: true });
    }
  });

  it('exits 2 when the service cannot be reached, refuses the call, or the arguments are wrong', async () => {
    const unreachable = io();
    expect(await runCli(['ingest', '--url', 'http://127.0.0.1:9'], unreachable.io)).toBe(2);
    expect(unreachable.stderr.text).toMatch(/Cannot reach the service at http:\/\/127\.0\.0\.1:9/);

    const unknownCase = io();
    expect(await runCli(['ingest', '--url', url, '--case', 'no-such-case'], unknownCase.io)).toBe(2);
    expect(unknownCase.stderr.text).toMatch(/answered 404: .*no-such-case/);

    const badOption = io();
    expect(await runCli(['ingest', '--url', url, '--colour'], badOption.io)).toBe(2);
    expect(badOption.stderr.text).toMatch(/unknown option '--colour'/);

    const badUrl = io();
    expect(await runCli(['status', '--url', 'not a url'], badUrl.io)).toBe(2);
    expect(badUrl.stderr.text).toMatch(/--url "not a url" is not a URL/);
  });

  it('runs as the installed bin, with its exit code', async () => {
    const bin = join(ROOT, 'bin/eval-backend.mjs');
    const result = await promisify(execFile)(process.execPath, [bin, 'ingest', '--url', url, '--no-catalog-version'], {
      env: { ...process.env, CI: 'true' },
    });
    expect(result.stdout).toMatch(/unchanged tugline@v1\.0\.0/);
    const failed = await promisify(execFile)(process.execPath, [bin, 'status', '--url', 'http://127.0.0.1:9']).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2 });
  }, 120_000);
});

describe('eval-backend status', () => {
  it('prints readiness, the store, jobs by harness and the queues with their workers', async () => {
    const run = io();
    expect(await runCli(['status', '--url', url], run.io)).toBe(0);
    expect(run.stdout.text).toMatch(/^Readiness ready$/m);
    expect(run.stdout.text).toMatch(/^Catalog\s+2 versions stored/m);
    expect(run.stdout.text).toMatch(/^all\s+0\s+0\s+0\s+0\s+0$/m);
    expect(run.stdout.text).toMatch(/^runs\s+\d+\s+\d+/m);
    // This app runs the background workers itself, so the ingest queue has one.
    expect(run.stdout.text).toMatch(/^ingest\s+0\s+0\s+0\s+\d+\s+\d+\s+1$/m);
  });

  it('prints the raw answer with --json', async () => {
    const run = io();
    expect(await runCli(['status', '--url', url, '--json'], run.io)).toBe(0);
    const status = JSON.parse(run.stdout.text) as { storeReady: boolean; queues: Array<{ name: string }> };
    expect(status.storeReady).toBe(true);
    expect(status.queues.map((queue) => queue.name)).toEqual(expect.arrayContaining(['runs', 'ingest', 'publish', 'snapshot']));
  });
});

/** Resolves once `capture` holds text matching `pattern`, or fails after `ms`. */
async function printed(capture: Capture, pattern: RegExp, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(capture.text)) {
    if (Date.now() > deadline) throw new Error(`never printed ${pattern}; printed:\n${capture.text}`);
    await new Promise((resolve) => capture.once('wrote', resolve).setMaxListeners(0));
  }
}

describe('eval-backend watch', () => {
  it('prints the active list on connect, then each run transition with --runs, until interrupted', async () => {
    const stop = new AbortController();
    const run = io({ signal: stop.signal });
    notifyWrites(run.stdout);
    const watching = runCli(['watch', '--url', url, '--runs'], run.io);
    await printed(run.stdout, /connected \(stream [0-9a-f-]+, runs on\)\n.*0 jobs in flight/);

    const http = jobsHttp(url);
    const { token } = await backend.auth.register('watcher');
    const launched = await http.post('/jobs', token, { testCase: 'tugline', version: 'v1.0.0', variant: 'base', harness: 'claude', model: 'acme/coder' });
    expect(launched.status).toBe(202);
    const jobId = launched.body.jobId as string;
    await printed(run.stdout, new RegExp(`run enqueued\\s+queued\\s+${jobId} tugline@v1\\.0\\.0/base claude acme/coder`));
    expect((await http.post(`/jobs/${jobId}/cancel`, token)).status).toBe(200);
    await printed(run.stdout, new RegExp(`run finished\\s+canceled\\s+${jobId}`));

    stop.abort();
    expect(await watching).toBe(0);
  });

  it('reopens a stream that went quiet and re-reads the active list', async () => {
    const stop = new AbortController();
    const run = io({ signal: stop.signal });
    notifyWrites(run.stdout);
    // The service heartbeats every 15 s; a 300 ms watchdog sees it as quiet and reopens.
    const watching = watchCommand({ url, quietMs: 300, backoffMs: 10 }, run.io);
    await printed(run.stdout, /connected[^\n]*\n[^\n]*jobs in flight[\s\S]*connected[^\n]*\n[^\n]*jobs in flight/);
    expect(run.stderr.text).toMatch(/no frame for 0 s; reconnecting in/);
    stop.abort();
    expect(await watching).toBe(0);
  });

  it('keeps retrying with backoff while the service is down', async () => {
    const stop = new AbortController();
    const run = io({ signal: stop.signal });
    notifyWrites(run.stderr);
    const watching = watchCommand({ url: 'http://127.0.0.1:9', backoffMs: 10, maxBackoffMs: 40 }, run.io);
    await printed(run.stderr, /(Cannot reach the service[^\n]*reconnecting in 0 s\n[\s\S]*){3}/);
    stop.abort();
    expect(await watching).toBe(0);
  });
});

/** Makes a capture emit `wrote` after each write, so a test waits on output rather than on time. */
function notifyWrites(capture: Capture) {
  const write = capture._write.bind(capture);
  capture._write = (chunk, encoding, done) => write(chunk, encoding, () => {
    done();
    capture.emit('wrote');
  });
}

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { fencedBlocks, ROOT } from './markdown-blocks.js';

/**
 * The README's quick start, run as written against a started test backend: the
 * `sh quickstart-service` block says how the service is started (its variables are given to
 * the backend), and the `sh quickstart` blocks run in order in one shell, with the default
 * addresses pointed at the backend and its auth service.
 */
const blocks = fencedBlocks('README.md');
const service = blocks.filter((block) => block.info.join(' ') === 'sh quickstart-service');
const steps = blocks.filter((block) => block.info.join(' ') === 'sh quickstart');

/** The `NAME=value` words before `npm start` in the service block. */
function serviceEnv(text: string): Record<string, string> {
  const line = text.split('\n').find((candidate) => /\bnpm start\b/.test(candidate));
  if (!line) throw new Error('the quickstart-service block does not run npm start');
  const assignments = line.slice(0, line.indexOf('npm start')).trim().split(/\s+/).filter(Boolean);
  return Object.fromEntries(assignments.map((word) => {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(word);
    if (!match) throw new Error(`not a variable assignment before npm start: ${word}`);
    return [match[1]!, match[2]!];
  }));
}

let backend: TestBackend;
let api: URL;
let auth: URL;

beforeAll(async () => {
  expect(service).toHaveLength(1);
  backend = await startTestBackend(serviceEnv(service[0]!.text));
  api = new URL(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  auth = new URL(backend.auth.url);
});
afterAll(() => backend?.close());

describe('the README quick start', () => {
  it('has a service block and steps that name only the default addresses', () => {
    expect(steps.length).toBeGreaterThanOrEqual(4);
    for (const step of steps) expect(step.text.match(/(?:localhost|127\.0\.0\.1):(\d+)/g)?.every((address) => /:(8787|8789)$/.test(address)) ?? true).toBe(true);
  });

  it('runs every step as written against the started service', async () => {
    const pointed = (text: string) => text
      .replace(/(?:localhost|127\.0\.0\.1):8787/g, api.host)
      .replace(/(?:localhost|127\.0\.0\.1):8789/g, auth.host);
    const script = ['set -euo pipefail', ...steps.map((step, index) => `echo "=== quick-start step ${index + 1} ===" >&2\n${pointed(step.text)}`)].join('\n');
    const result = await promisify(execFile)('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, EVAL_BACKEND_URL: api.origin, CI: '' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
    const failed = 'code' in result && result.code !== undefined && result.code !== 0;
    expect(failed, `a quick-start step failed:\n${result.stderr}\n${result.stdout}`).toBe(false);
    expect(result.stdout).toMatch(/ingested/);
    expect(result.stdout).toMatch(/"jobId"/);
    expect(result.stdout).toMatch(/"jobToken"/);
    expect(result.stdout).toMatch(/^evb_jobs\{/m);
    expect(result.stdout).toMatch(/^200$/m);
  }, 240_000);
});

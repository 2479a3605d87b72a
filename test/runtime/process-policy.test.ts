import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const POLICY = fileURLToPath(new URL('../../dist/src/runtime/process-policy.js', import.meta.url));

it('logs and counts an unhandled rejection, and the process keeps running', () => {
  expect(existsSync(POLICY), 'npm run build first').toBe(true);
  // A process of its own: Node's default for an unhandled rejection is to exit with code 1.
  const script = `
    import { installProcessPolicy, unhandledRejections } from ${JSON.stringify(POLICY)};
    installProcessPolicy({ error: (object, message) => console.log('logged:', message, object.err.message, object.unhandledRejections), fatal() {} });
    Promise.reject(new Error('lost in a claim storm'));
    setTimeout(() => console.log('still serving; counted', unhandledRejections()), 20);
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(out).toContain('logged: unhandled promise rejection (the process keeps running) lost in a claim storm 1');
  expect(out).toContain('still serving; counted 1');
});

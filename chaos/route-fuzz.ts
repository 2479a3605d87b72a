/**
 * `npm run chaos -- route-fuzz`: the route fuzzer of the test suite (test/api/route-fuzz.test.ts)
 * at length: 20,000 backend requests and 4,000 to the auth service, generated from every
 * route's own schema. It proves no input reaches a server fault and every error is the
 * envelope; a failure prints the counterexample and the seed to replay with FUZZ_SEED.
 */
import { spawn } from 'node:child_process';
import { repoRoot } from '../bench/lib/repo-root.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);

export default async function routeFuzz(): Promise<ScenarioResult> {
  const began = Date.now();
  const code = await new Promise<number | null>((done) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/api/route-fuzz.test.ts'], {
      cwd: repoRoot(), stdio: 'inherit', env: { ...process.env, FUZZ_RUNS: String(RUNS) },
    });
    child.on('exit', done);
  });
  console.log(`  route fuzz: ${RUNS} backend and ${Math.ceil(RUNS / 5)} auth requests, ${code === 0 ? 'no server fault, every error in the envelope' : 'FAILED (see above)'}, ${((Date.now() - began) / 1000).toFixed(0)} s`);
  return judge(
    { 'backend requests': RUNS, 'auth requests': Math.ceil(RUNS / 5), 'vitest exit': code ?? 'signal' },
    { 'no server fault, every error in the envelope': code === 0 },
  );
}

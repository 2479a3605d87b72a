/**
 * CPU profile of the claim path (`npm run bench -- claim-profile`): one dispatcher
 * (PROFILE_DISPATCHERS of them when set) claims from a worker thread while the server's thread runs under V8's sampling
 * profiler, so the profile holds the server's work alone. Prints the main thread's CPU per
 * claim by package and the costliest functions by self time, and writes the whole profile
 * (open it in Chrome DevTools or speedscope) to `claim.cpuprofile` in the system's temp folder.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import type { Runtime } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import { benchRedis } from './lib/bench-redis.js';
import { startClaimApp } from './lib/claim-app.js';
import { machineLine } from './lib/machine.js';
import { runDispatchers } from './lib/run-worker.js';
import { ms, printTable, summarize } from './lib/stats.js';

const CLAIMS = 20_000;
const WARMUP = 2_000;
/** Concurrent dispatchers while sampling (PROFILE_DISPATCHERS, default 1): 32 shows the throughput run's costs. */
const DISPATCHERS = Number(process.env.PROFILE_DISPATCHERS ?? 1);

/** Where a profile node's code comes from: a package, Node itself, this project, or V8's pseudo-nodes. */
function origin(frame: Runtime.CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  if (url.startsWith('node:')) return 'node';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return /\/(src|bench)\//.test(url) ? 'eval-backend' : url;
}


export default async function benchClaimProfile(): Promise<void> {
  console.log(machineLine());
  const redis = await benchRedis();
  const app = await startClaimApp(redis.url);
  const session = new Session();
  session.connect();
  try {
    await app.fill(WARMUP + CLAIMS);
    await runDispatchers(app.url, DISPATCHERS, { limit: WARMUP });
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const run = await runDispatchers(app.url, DISPATCHERS, { limit: CLAIMS });
    const { profile } = await session.post('Profiler.stop');
    const saved = join(tmpdir(), 'claim.cpuprofile');
    writeFileSync(saved, JSON.stringify(profile));

    const latency = summarize(run.samplesMs);
    const total = profile.endTime - profile.startTime;
    const perSample = total / Math.max(1, profile.samples?.length ?? 1);
    const hits = new Map<number, number>();
    for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
    const byOrigin = new Map<string, number>();
    const byFunction = new Map<string, number>();
    for (const node of profile.nodes) {
      const us = (hits.get(node.id) ?? 0) * perSample;
      if (us === 0) continue;
      const where = origin(node.callFrame);
      byOrigin.set(where, (byOrigin.get(where) ?? 0) + us);
      const file = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist\/)?/, '');
      const name = `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    }
    const claims = run.claimed.length;
    const perClaim = (us: number) => `${(us / claims).toFixed(1)} µs`;
    console.log(`\n${claims} claims, ${DISPATCHERS} dispatcher(s): p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)}; profile ${(total / 1000).toFixed(0)} ms`);
    printTable('Server thread time per claim, by origin (idle included: waiting on Redis and the client)', [...byOrigin]
      .sort((a, b) => b[1] - a[1])
      .map(([where, us]) => ({ origin: where, 'per claim': perClaim(us), share: `${((100 * us) / total).toFixed(1)}%` })));
    printTable('Costliest functions by self time (idle and program excluded)', [...byFunction]
      .filter(([name]) => !name.startsWith('(idle)') && !name.startsWith('(program)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([fn, us]) => ({ function: fn, 'per claim': perClaim(us) })));
    console.log(`\nWhole profile: ${saved}`);
  } finally {
    session.disconnect();
    await app.close();
    await redis.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchClaimProfile();

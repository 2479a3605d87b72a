import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PROBE_LANGUAGES } from '../src/probes/probe-conversations.js';
import { startBenchBackend } from './lib/bench-backend.js';
import { benchRedis } from './lib/bench-redis.js';
import { startFakeChatProvider } from './lib/fake-chat-provider.js';
import { machineLine } from './lib/machine.js';
import { printTable } from './lib/stats.js';

const SAMPLES = 32;
const DELAY_MS = 50;
const CONCURRENCY = 4;
const TARGET_RATIO = 1.5;

/**
 * A full all-arms probe at samples 32 (11 arms x 4 cases x 32 = 1,408 calls) through the
 * whole path (BullMQ job, worker, router client, classification pool, SQLite items) against
 * a provider answering each call in 50 ms. The floor is calls x 50 ms / concurrency; PASS
 * within 1.5x of it.
 */
export default async function benchProbeWall(): Promise<void> {
  const redis = await benchRedis();
  const provider = await startFakeChatProvider(DELAY_MS);
  const backend = await startBenchBackend(redis.url, { ROUTER_BASE_URL: provider.url, ROUTER_API_KEY: 'bench-key', PROBE_CONCURRENCY: String(CONCURRENCY) });
  const { app } = backend;
  try {
    await app.models.create({ slug: 'bench/model-1' });
    const calls = PROBE_LANGUAGES.length * 4 * SAMPLES;
    const started = performance.now();
    const probe = await app.probes.trigger('bench/model-1', { samples: SAMPLES });
    let row = (await app.probes.store.get(probe.id))!;
    while (row.status === 'running') {
      await sleep(20);
      row = (await app.probes.store.get(probe.id))!;
    }
    const wallMs = performance.now() - started;
    if (row.status !== 'complete' || row.itemCount !== calls) throw new Error(`probe ended ${row.status} with ${row.itemCount} of ${calls} items: ${row.error}`);
    const floorMs = (calls * DELAY_MS) / CONCURRENCY;
    const ratio = wallMs / floorMs;
    const stats = provider.stats();
    // The same calls as plain fetches in CONCURRENCY lanes, in the same run: what this machine
    // manages under its current load with no probe machinery at all.
    const rawMs = await rawLanes(provider.url, calls);
    printTable(`All-arms probe at samples ${SAMPLES} (${machineLine()})`, [{
      calls,
      'provider latency': `${DELAY_MS} ms`,
      concurrency: CONCURRENCY,
      'calls received': stats.calls,
      'peak in flight': stats.peak,
      floor: `${(floorMs / 1000).toFixed(2)} s`,
      wall: `${(wallMs / 1000).toFixed(2)} s`,
      ratio: ratio.toFixed(2),
      verdict: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL',
      'plain fetch lanes': `${(rawMs / 1000).toFixed(2)} s`,
      'wall / plain': (wallMs / rawMs).toFixed(2),
    }]);
  } finally {
    await backend.close();
    await provider.close();
    await redis.stop();
  }
}

async function rawLanes(url: string, calls: number): Promise<number> {
  const body = JSON.stringify({ model: 'bench/model-1', messages: [{ role: 'user', content: 'x'.repeat(3000) }] });
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < calls) {
      const response = await fetch(`${url}/api/v1/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await response.json();
    }
  }));
  return performance.now() - started;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchProbeWall();

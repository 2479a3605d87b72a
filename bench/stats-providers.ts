import { fileURLToPath } from 'node:url';
import { decodeRunRecord } from '../src/runs/decode-run-record.js';
import { providerStats } from '../src/stats/provider-stats.js';
import { measureFloors } from './floors.js';
import { startBenchBackend } from './lib/bench-backend.js';
import { benchRedis } from './lib/bench-redis.js';
import { keepAliveClient } from './lib/keep-alive-client.js';
import { machineLine } from './lib/machine.js';
import { longestStall, ms, printTable, summarize } from './lib/stats.js';

const RUNS = 100_000;
const PROVIDERS = ['Together', 'DeepInfra', 'Alibaba', 'Z.AI', 'Fireworks', 'Novita', 'Baseten', 'Groq'];
const MODELS = 12;
const TARGET_RATIO = 3;
/** The event loop may be held during a read for at most this share of the aggregate's own time. */
const TARGET_STALL_SHARE = 0.2;


function ggRecord(i: number) {
  const finished = Date.UTC(2025, 0, 1) + i * 60_000;
  const modelId = `vendor/model-${i % MODELS}`;
  const slice = (n: number) => ({
    provider: n === 2 && i % 50 === 0 ? null : PROVIDERS[(i + n * 3) % PROVIDERS.length],
    modelId: i % 200 === 0 ? null : modelId,
    calls: 10 + (i % 7),
    tokens: { uncachedInput: 1000, cachedInput: 8000, output: 400, reasoning: 50 },
    cost: { comparable: 0.03, actual: 0.02 },
    rejected: i % 13 === 0 ? 1 : 0,
    turns: 6,
    working: 5,
    errors: i % 5 === 0 ? { model_timeout: 1, transpile_compile: 1 } : {},
    stalls: i % 11 === 0 ? 1 : 0,
    cacheMisses: i % 17 === 0 ? 1 : 0,
  });
  return {
    id: `gg-${String(i).padStart(6, '0')}`,
    startedAt: new Date(finished - 600_000).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    subject: {
      testCaseSlug: `case-${i % 40}`, testCaseVersion: 'v1.0.0', variant: 'base', harnessSlug: 'gg', modelId, testType: 'end-to-end',
      ggSummary: {
        executionMode: i % 3 === 0 ? 'tool_calling' : 'responses_as_code',
        providerStats: [slice(0), slice(1), slice(2)],
        errors: {
          turns: 18, errors: 2, modelApi: 1, transpile: 1, programFault: 0, sandboxLimit: 0, missingCompletion: 0, byType: { transpile_compile: 1 },
          toolFailures: { 'invalid-argument': 1 },
        },
        toolCalls: 30,
      },
    },
    tooling: {},
    environment: { os: 'linux', containerImage: 'runner:1', authMode: 'api-key' },
    metrics: { runTimeSeconds: 300, tokens: { uncachedInput: 3000, cachedInput: 24000, output: 1200, reasoning: 150 }, cost: { actual: 0.06, comparable: null } },
    validation: { loaded: true, checks: [] },
    links: { sourceRepo: null, playableBuild: null },
    status: { state: 'completed', detail: null },
  };
}

/**
 * `GET /stats/providers` at 100,000 stored gg runs (three provider slices each) over
 * keep-alive HTTP, against the SQLite aggregates it needs run directly plus the no-op HTTP
 * floor. PASS when HTTP stays within 3x of (raw aggregate + floor), and when the reads hold
 * the server's event loop for at most a fifth of the aggregate's time (they run on the
 * statistics thread; the aggregate run inline would hold it throughout).
 */
export default async function benchStatsProviders(): Promise<void> {
  const redis = await benchRedis();
  const backend = await startBenchBackend(redis.url, { RUN_WORKERS: 'false' });
  const { app } = backend;
  const { db } = app;
  try {
    const seedStart = Date.now();
    // Each run is stored in its own transaction, as a push stores it.
    for (let i = 0; i < RUNS; i++) {
      const raw = ggRecord(i);
      const decoded = decodeRunRecord(raw);
      await app.runs.rows.store({ id: raw.id, jobId: null, record: JSON.stringify(raw), recordFormat: 1, decodeError: null, events: '[]', lifted: decoded.lifted });
    }
    db.exec('ANALYZE');
    console.log(`seeded ${RUNS} gg runs in ${Date.now() - seedStart} ms`);

    const client = keepAliveClient(backend.url);
    const check = JSON.parse((await client.send('GET', '/stats/providers')).body) as { runsScanned: number; providers: unknown[] };
    if (check.runsScanned !== RUNS || check.providers.length !== PROVIDERS.length + 1) throw new Error(`unexpected answer: ${JSON.stringify(check).slice(0, 300)}`);
    const raw = providerStats(app.store).aggregate;
    const iterations = 30;
    const samples: [number[], number[]] = [[], []];
    const stalls: number[] = [];
    for (let i = 0; i < iterations + 3; i++) {
      for (const [side, call] of [() => client.send('GET', '/stats/providers'), async () => raw()].entries()) {
        const start = process.hrtime.bigint();
        const stall = side === 0 ? await longestStall(call) : (await call(), 0);
        if (i < 3) continue;
        samples[side]!.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (side === 0) stalls.push(stall);
      }
    }
    client.close();
    const [http, sqlite] = [summarize(samples[0]), summarize(samples[1])];
    const floors = await measureFloors(redis.url, 2000);
    const ratio = http.p50 / (sqlite.p50 + floors.noopPost.p50);
    const stall = Math.max(...stalls);
    printTable(`GET /stats/providers at ${RUNS} gg runs (p50 of ${iterations}; ${machineLine()})`, [{
      http: ms(http.p50), 'raw sqlite aggregate': ms(sqlite.p50), 'no-op floor': ms(floors.noopPost.p50), ratio: ratio.toFixed(2),
      verdict: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL',
    }]);
    printTable('Event loop held during a read (longest lateness of a 1 ms timer, over every timed read)', [{
      'longest hold': ms(stall), 'inline aggregate (p50)': ms(sqlite.p50), share: (stall / sqlite.p50).toFixed(2),
      verdict: stall <= TARGET_STALL_SHARE * sqlite.p50 ? 'PASS' : 'FAIL',
    }]);
  } finally {
    await backend.close();
    await redis.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchStatsProviders();

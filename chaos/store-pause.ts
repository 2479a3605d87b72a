/**
 * PostgreSQL hangs instead of refusing: the store's postmaster and backends are paused
 * (SIGSTOP) for 20 s under reads, drivers' reports and account routes (the auth service keeps
 * its accounts in the same database). Every answer meanwhile comes within a few seconds: 503
 * `store_unavailable` (or `auth_store_unavailable` on account routes) with Retry-After, never
 * another 5xx, never `queue_unavailable`; once resumed, everything answers again at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findPostgresBinaries, startManagedPostgres } from '../src/db/managed-postgres.js';
import { pausePostgres } from '../test/helpers/pause-postgres.js';
import { enqueue, printFigures, SERVICE_TOKEN, startChaosService } from './lib/chaos-service.js';
import { judge, skipped, type ScenarioResult } from './lib/scenario-result.js';

const PAUSE_MS = 20_000;
const CLIENTS = 8;
const JOBS = 20;
/** What each answer may take while the store hangs (ms): the serving pool's statement deadline and a margin. */
const DEADLINE_MS = 8_000;

interface Sample { path: string; status: number; code: string | null; retryAfter: boolean; ms: number }

export default async function storePause(): Promise<ScenarioResult> {
  if (!findPostgresBinaries()) return skipped('PostgreSQL server binaries are not installed');
  const folder = mkdtempSync(join(tmpdir(), 'evb-chaos-pg-'));
  const server = await startManagedPostgres({ dir: folder });
  let resume: (() => void) | null = null;
  try {
    const chaos = await startChaosService({ DATABASE_URL: await server.createDatabase('chaos') });
    try {
      const ids = await enqueue(chaos, JOBS);
      const claimed: Array<{ jobId: string; jobToken: string }> = [];
      for (let i = 0; i < CLIENTS; i += 1) {
        const claim = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN);
        if (claim.status === 200) claimed.push(claim.body);
      }
      const origin = chaos.service.url;
      const ask = async (method: string, path: string, token?: string, body?: unknown): Promise<Sample> => {
        const began = performance.now();
        try {
          const response = await fetch(`${origin}${path}`, {
            method,
            headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(30_000),
          });
          const text = await response.text();
          const code = (() => { try { return (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null; } catch { return null; } })();
          return { path, status: response.status, code, retryAfter: response.headers.has('retry-after'), ms: performance.now() - began };
        } catch {
          return { path, status: 0, code: null, retryAfter: false, ms: performance.now() - began };
        }
      };
      // Each client cycles through reads, its driver's report, and an account route.
      const cycle = (client: number, round: number): Promise<Sample> => {
        const job = claimed[client % claimed.length]!;
        switch (round % 5) {
          case 0: return ask('GET', `/jobs/${ids[(client + round) % ids.length]}`);
          case 1: return ask('GET', '/runs');
          case 2: return ask('GET', '/test-cases');
          case 3: return ask('POST', `/jobs/${job.jobId}/status`, job.jobToken, { state: 'running' });
          default: return ask('GET', '/coverage-plans', chaos.operator);
        }
      };

      const samples: Sample[] = [];
      resume = pausePostgres(server.pid);
      const pausedAt = performance.now();
      await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
        for (let round = 0; performance.now() - pausedAt < PAUSE_MS; round += 1) samples.push(await cycle(client, round));
      }));
      resume();
      resume = null;
      const resumedAt = performance.now();
      let recoveredMs = Infinity;
      for (;;) {
        const answers = await Promise.all([0, 1, 2, 3, 4].map((round) => cycle(0, round)));
        if (answers.every((answer) => answer.status >= 200 && answer.status < 300)) {
          recoveredMs = performance.now() - resumedAt;
          break;
        }
        if (performance.now() - resumedAt > 30_000) break;
        await sleep(100);
      }

      const latencies = samples.map((sample) => sample.ms).sort((a, b) => a - b);
      const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
      const byCode = new Map<string, number>();
      for (const sample of samples) byCode.set(`${sample.status} ${sample.code ?? ''}`.trim(), (byCode.get(`${sample.status} ${sample.code ?? ''}`.trim()) ?? 0) + 1);
      const otherFaults = samples.filter((sample) => sample.status === 0 || (sample.status >= 500 && sample.status !== 503)).length;
      const without = samples.filter((sample) => sample.status === 503 && !sample.retryAfter).length;
      const queueCodes = samples.filter((sample) => sample.code === 'queue_unavailable').length;
      const late = samples.filter((sample) => sample.ms >= DEADLINE_MS).length;
      printFigures({
        'pause (s)': PAUSE_MS / 1000,
        'answers during the pause': samples.length,
        'answers by status and code': [...byCode].map(([key, count]) => `${key}: ${count}`).join(', '),
        'latency p50 / p99 / max (ms)': `${pick(0.5).toFixed(0)} / ${pick(0.99).toFixed(0)} / ${pick(1).toFixed(0)}`,
        [`answers at or past ${DEADLINE_MS} ms`]: late,
        '5xx other than 503, or no answer': otherFaults,
        '503 without Retry-After': without,
        'queue_unavailable answers (Redis was healthy)': queueCodes,
        'all routes 2xx again after resume (ms)': Number.isFinite(recoveredMs) ? recoveredMs.toFixed(0) : 'not within 30 s',
      });
      return judge(
        { answers: samples.length, 'max ms': pick(1).toFixed(0), 'other 5xx': otherFaults, 'queue_unavailable': queueCodes, 'recovered ms': Number.isFinite(recoveredMs) ? recoveredMs.toFixed(0) : 'no' },
        {
          [`every answer within ${DEADLINE_MS} ms`]: late === 0,
          'no 5xx but 503, and every request answered': otherFaults === 0,
          'every 503 carries Retry-After': without === 0,
          'no PostgreSQL pause reported as a Redis outage': queueCodes === 0,
          'every route answers again within 15 s of resuming': recoveredMs < 15_000,
        },
      );
    } finally {
      resume?.();
      await chaos.close();
    }
  } finally {
    resume?.();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

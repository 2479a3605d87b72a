/**
 * PostgreSQL killed (kill -9 of the server and its backends, then started again) and later
 * paused (SIGSTOP) in the middle of a claim storm with drivers' reports, single cancels and a
 * coverage plan's halt (issue 39 item 1). Redis decides every transition and the store's rows
 * are copies, so: no job lost, none claimed twice, no 5xx but fast 503s, and within a minute
 * of the last fault every row agrees with Redis. Then the finished states' Redis expiry is
 * simulated (their run hashes deleted) and the API restarted: boot re-queues nothing and fails
 * nothing, since no row is left in flight to look lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findPostgresBinaries, startManagedPostgres, type ManagedPostgres } from '../src/db/managed-postgres.js';
import { pausePostgres } from '../test/helpers/pause-postgres.js';
import { enqueue, LAUNCH, printFigures, SERVICE_TOKEN, startChaosService, type Answer, type ChaosService } from './lib/chaos-service.js';
import { judge, skipped, type ScenarioResult } from './lib/scenario-result.js';
import { descendantsOf } from './lib/supervised-service.js';

const JOBS = 5000;
const DISPATCHERS = 12;
const PLAN_RUNS = 60;
/** When the faults come, from the storm's start (ms), and how long each lasts. */
const KILL_AT_MS = 3000;
const DOWN_MS = 8000;
const PAUSE_AT_MS = 17_000;
const PAUSE_MS = 10_000;
/** The storm claims until this long after the last fault ends (ms); the rest is canceled by a sweep. */
const STORM_TAIL_MS = 3000;
const AGREE_WITHIN_MS = 60_000;

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

export default async function postgresOutageClaimStorm(): Promise<ScenarioResult> {
  if (!findPostgresBinaries()) return skipped('PostgreSQL server binaries are not installed');
  const folder = mkdtempSync(join(tmpdir(), 'evb-chaos-pgo-'));
  // Durable: with synchronous_commit off, the kill -9 loses commits PostgreSQL acknowledged.
  let server: ManagedPostgres = await startManagedPostgres({ dir: folder, durable: true });
  let resume: (() => void) | null = null;
  try {
    const chaos = await startChaosService({ DATABASE_URL: await server.createDatabase('chaos') });
    try {
      // The plan's cell is another variant than the storm's: with the storm's thousands in
      // flight in its own cell a top-up would launch nothing. Launched after the storm, its
      // jobs wait behind it until the halt.
      const planId = await createPlan(chaos);
      const ids = await enqueue(chaos, JOBS);
      const topUp = await chaos.call('POST', `/coverage-plans/${planId}/topup`, chaos.operator);
      if (topUp.status !== 200) throw new Error(`top-up refused: ${topUp.status} ${JSON.stringify(topUp.body)}`);
      const planJobs = (topUp.body.cells as Array<{ jobIds: string[] }>).flatMap((cell) => cell.jobIds);

      const answered = new Map<string, number>();
      const byStatus = new Map<string, number>();
      const count = (what: string, status: number, code?: string) => {
        const key = `${what} ${status}${code ? ` ${code}` : ''}`;
        byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      };
      let otherFaults = 0;
      let slowest = 0;
      const note = (what: string, answer: Answer) => {
        const code = (answer.body as { error?: { code?: string } } | null)?.error?.code;
        count(what, answer.status, code);
        slowest = Math.max(slowest, answer.ms);
        if (answer.status === 0 || (answer.status >= 500 && answer.status !== 503)) otherFaults += 1;
      };
      const began = Date.now();
      let claiming = true;

      // Retried until it lands: a 503 is the service's honest "not now".
      const until2xx = async (what: string, method: string, path: string, token: string, body?: unknown, accept: number[] = []) => {
        for (let tries = 0; tries < 600; tries += 1) {
          const answer = await chaos.call(method, path, token, body, 10_000);
          note(what, answer);
          if ((answer.status >= 200 && answer.status < 300) || accept.includes(answer.status)) return answer;
          await sleep(100);
        }
        throw new Error(`${what} never answered 2xx`);
      };
      const dispatcher = async () => {
        while (claiming) {
          const claim = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN, undefined, 10_000);
          note('claim', claim);
          if (claim.status === 204) {
            await sleep(50);
            continue;
          }
          if (claim.status !== 200) {
            await sleep(100);
            continue;
          }
          const { jobId, jobToken } = claim.body as { jobId: string; jobToken: string };
          answered.set(jobId, (answered.get(jobId) ?? 0) + 1);
          // 409: a cancel got there first; the driver stops.
          const running = await until2xx('report running', 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'running' }, [409]);
          if (running.status === 409) continue;
          await sleep(20 + Math.random() * 60);
          await until2xx('report failed', 'POST', `/jobs/${jobId}/status`, jobToken, { state: 'failed', detail: 'the chaos driver ends every run so' }, [409]);
        }
      };
      const canceller = async () => {
        for (let i = 0; claiming; i += 1) {
          const id = ids[(i * 7919) % ids.length]!;
          const answer = await chaos.call('POST', `/jobs/${id}/cancel`, chaos.operator, undefined, 10_000);
          note('cancel', answer);
          await sleep(40);
        }
      };
      let haltCanceled = 0;
      const faults = async () => {
        await sleep(KILL_AT_MS - (Date.now() - began));
        const pids = [server.pid, ...descendantsOf(server.pid)];
        for (const pid of pids) process.kill(pid, 'SIGKILL');
        await server.stop();
        await sleep(DOWN_MS);
        server = await startManagedPostgres({ dir: folder, durable: true });
        await sleep(Math.max(0, PAUSE_AT_MS - (Date.now() - began)));
        // The halt comes while the store hangs, and is retried until it lands.
        const halt = until2xx('halt', 'POST', `/coverage-plans/${planId}/halt-all`, chaos.operator);
        resume = pausePostgres(server.pid);
        await sleep(PAUSE_MS);
        resume();
        resume = null;
        haltCanceled = ((await halt).body as { canceled?: number }).canceled ?? 0;
        await sleep(STORM_TAIL_MS);
        claiming = false;
      };
      await Promise.all([faults(), canceller(), ...Array.from({ length: DISPATCHERS }, dispatcher)]);
      const faultsEnded = Date.now() - STORM_TAIL_MS;
      const sweep = await until2xx('cancel-waiting', 'POST', '/jobs/cancel-waiting', chaos.operator);

      // Every job is finished in Redis now; the rows must follow within a minute.
      const redis = chaos.redis();
      await redis.connect();
      const all = [...ids, ...planJobs];
      // Rows read 25 at a time, each retried past a 503: a burst of thousands of reads fills
      // the pool's queue and answers 503 by design, which is no disagreement.
      const rowState = async (id: string) => {
        for (let tries = 0; ; tries += 1) {
          const answer = await chaos.call('GET', `/jobs/${id}`, undefined, undefined, 10_000);
          if (answer.status === 200 || tries >= 20) return answer.status === 200 ? (answer.body as { state: string }).state : `answered ${answer.status}`;
          await sleep(100);
        }
      };
      const rowStates = async () => {
        const states = new Map<string, string>();
        for (let i = 0; i < all.length; i += 25) {
          const part = all.slice(i, i + 25);
          for (const [j, state] of (await Promise.all(part.map(rowState))).entries()) states.set(part[j]!, state);
        }
        return states;
      };
      const compare = async () => {
        const disagreeing: string[] = [];
        const unfinished: string[] = [];
        const rows = await rowStates();
        for (let i = 0; i < all.length; i += 500) {
          const part = all.slice(i, i + 500);
          const states = await Promise.all(part.map((id) => redis.hget(chaos.keys.run(id), 'state')));
          for (const [j, id] of part.entries()) {
            if (rows.get(id) !== states[j]) disagreeing.push(`${id}: row ${rows.get(id)}, Redis ${states[j]}`);
            if (!TERMINAL.has(states[j] ?? '')) unfinished.push(id);
          }
        }
        return { disagreeing, unfinished };
      };
      let agreedAfterMs = Infinity;
      let last = await compare();
      while (last.disagreeing.length > 0 && Date.now() - faultsEnded < AGREE_WITHIN_MS + 30_000) {
        await sleep(2000);
        last = await compare();
      }
      if (last.disagreeing.length === 0) agreedAfterMs = Date.now() - faultsEnded;
      const uncopied = await redis.zcard(chaos.keys.uncopied);
      const doubleClaims = [...answered.values()].filter((claims) => claims > 1).length;
      const planLeft = (await Promise.all(planJobs.map((id) => redis.hget(chaos.keys.run(id), 'state')))).filter((state) => !TERMINAL.has(state ?? '')).length;

      // The finished states' expiry, simulated: every run hash gone. Then the API restarts.
      const before = await rowStates();
      for (let i = 0; i < all.length; i += 500) await redis.del(...all.slice(i, i + 500).map((id) => chaos.keys.run(id)));
      const api = chaos.service.pid('api')!;
      process.kill(api, 'SIGKILL');
      for (let waited = 0; (chaos.service.pid('api') === api || (await chaos.call('GET', '/readyz')).status !== 200) && waited < 60_000; waited += 200) await sleep(200);
      let changedAfterExpiry = 0;
      const changedExamples: string[] = [];
      for (const [id, state] of await rowStates()) {
        if (state === before.get(id)) continue;
        changedAfterExpiry += 1;
        if (changedExamples.length < 5) changedExamples.push(`${id}: ${before.get(id)} -> ${state}`);
      }
      const requeued = await redis.llen(chaos.keys.wait);
      const claimableAfter = (await chaos.call('POST', '/jobs/next', SERVICE_TOKEN)).status;

      printFigures({
        'jobs (storm + plan)': `${ids.length} + ${planJobs.length}`,
        'plan top-up': JSON.stringify({ enqueued: topUp.body.enqueued, skipped: topUp.body.skipped ?? null }),
        dispatchers: DISPATCHERS,
        'faults': `kill -9 at ${KILL_AT_MS / 1000} s for ${DOWN_MS / 1000} s; pause at ${PAUSE_AT_MS / 1000} s for ${PAUSE_MS / 1000} s`,
        'claims answered': answered.size,
        'canceled by the closing sweep': sweep.body.canceled,
        'answers by route and status': [...byStatus].sort().map(([key, n]) => `${key}: ${n}`).join(', '),
        '5xx other than 503, or no answer': otherFaults,
        'slowest answer (ms)': slowest.toFixed(0),
        'double claims': doubleClaims,
        'jobs Redis has not finished': last.unfinished.length,
        'rows disagreeing with Redis at the end': last.disagreeing.length,
        'disagreeing rows, for example': last.disagreeing.slice(0, 5).join('; '),
        'rows agree with Redis (ms after the last fault)': Number.isFinite(agreedAfterMs) ? agreedAfterMs : 'never',
        'outcomes Redis still lists as not copied': uncopied,
        'plan jobs the halt canceled': haltCanceled,
        'plan jobs not finished after the halt': planLeft,
        'rows changed by a restart after the expiry': changedAfterExpiry,
        'changed rows, for example': changedExamples.join('; '),
        'jobs queued again by that restart': requeued,
      });
      return judge(
        { 'double claims': doubleClaims, 'other 5xx': otherFaults, 'agreed ms': Number.isFinite(agreedAfterMs) ? agreedAfterMs : 'never', 'changed after expiry': changedAfterExpiry },
        {
          'no job lost: every job finished in Redis': last.unfinished.length === 0,
          'no job claimed twice': doubleClaims === 0,
          'no 5xx but 503, and every request answered': otherFaults === 0,
          'every row agrees with Redis within a minute of the last fault': agreedAfterMs <= AGREE_WITHIN_MS,
          'every outcome copied and confirmed': uncopied === 0,
          'the plan had jobs for the halt to cancel': planJobs.length > 0,
          'the halt finished every plan job': planLeft === 0,
          'a restart after the states expired changes no row and queues nothing': changedAfterExpiry === 0 && requeued === 0 && claimableAfter === 204,
        },
      );
    } finally {
      (resume as (() => void) | null)?.();
      await chaos.close();
    }
  } finally {
    (resume as (() => void) | null)?.();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function createPlan(chaos: ChaosService): Promise<string> {
  const answer = await chaos.call('POST', '/coverage-plans', chaos.operator, {
    name: 'chaos plan', runsPerCell: PLAN_RUNS, schedule: { bufferTarget: { kind: 'unbounded' } },
    combos: [{ harness: LAUNCH.harness, model: LAUNCH.model }],
    cases: [{ slug: LAUNCH.testCase, version: LAUNCH.version, variant: 'squall' }],
  });
  if (answer.status !== 201) throw new Error(`plan not created: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.id as string;
}

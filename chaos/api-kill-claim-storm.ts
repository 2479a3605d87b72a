/**
 * kill -9 of the API process in the middle of a claim storm, then the supervisor's restart:
 * every job ends either dispatched to exactly one answered claim, dispatched by a claim whose
 * answer the kill cut off (the dispatch lease fails it later), or still claimable; none lost,
 * none claimed twice, and SQLite agrees with Redis.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { enqueue, printFigures, SERVICE_TOKEN, startChaosService } from './lib/chaos-service.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const JOBS = 2000;
const DISPATCHERS = 16;
const KILL_AFTER_CLAIMS = 400;

export default async function apiKillClaimStorm(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  try {
    const ids = await enqueue(chaos, JOBS);
    const answered = new Map<string, number>();
    let serverErrors = 0;
    let refused = 0;
    let killedAt = 0;
    let backAt = 0;
    const apiBefore = chaos.service.pid('api')!;

    const dispatcher = async () => {
      for (;;) {
        const answer = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN, undefined, 10_000);
        // Back once an answer follows a refused connection (answers already in flight at the kill do not count).
        if ((answer.status === 200 || answer.status === 204) && refused > 0 && !backAt) backAt = Date.now();
        if (answer.status === 200) {
          answered.set(answer.body.jobId, (answered.get(answer.body.jobId) ?? 0) + 1);
          if (!killedAt && answered.size >= KILL_AFTER_CLAIMS) {
            killedAt = Date.now();
            process.kill(apiBefore, 'SIGKILL');
          }
        } else if (answer.status === 204) {
          return;
        } else if (answer.status === 0) {
          refused++;
          await sleep(50);
        } else if (answer.status >= 500) {
          serverErrors++;
          await sleep(50);
        }
      }
    };
    await Promise.all(Array.from({ length: DISPATCHERS }, dispatcher));

    const redis = chaos.redis();
    await redis.connect();
    const states = new Map<string, number>();
    let lost = 0;
    let unanswered = 0;
    let mismatched = 0;
    let reapedWithoutReason = 0;
    for (const id of ids) {
      const job = (await chaos.call('GET', `/jobs/${id}`)).body as { state: string; detail: string | null };
      states.set(job.state, (states.get(job.state) ?? 0) + 1);
      const inRedis = await redis.hget(chaos.keys.run(id), 'state');
      if (inRedis !== job.state) mismatched++;
      if (job.state === 'failed' && !job.detail) reapedWithoutReason++;
      // The storm drained the queue: a job still waiting is lost. One dispatched by a claim the
      // kill cut off has no driver; the dispatch lease fails it (reaping is off by default).
      if (job.state === 'queued' || job.state === 'pending') lost++;
      if (job.state === 'dispatched' && !answered.has(id)) unanswered++;
    }
    const doubleClaims = [...answered.values()].filter((count) => count > 1).length;
    const restarted = chaos.service.pid('api') !== apiBefore;
    const recovery = backAt ? `${((backAt - killedAt) / 1000).toFixed(2)} s` : 'no outage seen';
    printFigures({
      'jobs enqueued': JOBS,
      dispatchers: DISPATCHERS,
      'claims answered': answered.size,
      'final states': [...states].map(([state, count]) => `${state} ${count}`).join(', '),
      'reaped without a reason': reapedWithoutReason,
      'jobs lost': lost,
      'claims cut off by the kill (left to the lease)': unanswered,
      'double claims': doubleClaims,
      'SQLite/Redis disagreements': mismatched,
      '5xx answers': serverErrors,
      'refused connections while down': refused,
      'API restarted (new pid)': restarted,
      'recovery (kill to next answer)': recovery,
    });
    return judge(
      { lost, 'claimed twice': doubleClaims, 'SQLite/Redis disagreements': mismatched, '5xx': serverErrors, recovered: recovery },
      {
        'the API was killed and restarted': killedAt > 0 && restarted,
        'no job lost': lost === 0,
        'no job claimed twice': doubleClaims === 0,
        'SQLite agrees with Redis': mismatched === 0,
        'no job failed without a reason': reapedWithoutReason === 0,
        'no 5xx answer': serverErrors === 0,
      },
    );
  } finally {
    await chaos.close();
  }
}

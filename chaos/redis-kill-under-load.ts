/**
 * kill -9 of the managed redis-server while launches and claims run: requests that need
 * Redis answer 503 queue_unavailable fast, reads go on, the supervisor restarts Redis, the
 * API resumes by itself, and the jobs queued before the kill are all still claimable.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { enqueue, LAUNCH, printFigures, SERVICE_TOKEN, startChaosService } from './lib/chaos-service.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const QUEUED = 500;
const LOAD_SECONDS = 8;
const KILL_AT_SECONDS = 2;
/** How long after the kill launches may answer 503 before the scenario fails for want of recovery. */
const RECOVERY_SECONDS = 60;

export default async function redisKillUnderLoad(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  try {
    const before = new Set(await enqueue(chaos, QUEUED));
    // Older than the append-only file's one-second fsync by the time Redis dies.
    await sleep(1500);
    const redisBefore = chaos.service.pid('redis')!;
    const counts = { launched: 0, unavailable: 0, otherErrors: 0, reads: 0, readErrors: 0 };
    let slowest503 = 0;
    let killedAt = 0;
    let recoveredAt = 0;
    // A launch that meets the outage waits up to 5 s for Redis to come back: an outage shorter than that shows as slow 202s, not 503s.
    let acceptedAfterKill = 0;
    let slowestAfterKill = 0;
    const launched: string[] = [];
    const end = Date.now() + LOAD_SECONDS * 1000;

    const outageShown = () => counts.unavailable + counts.otherErrors > 0;
    // Launches go on past the load's end while an outage that showed is not over, up to RECOVERY_SECONDS after the kill.
    const outageOpen = () => outageShown() && !recoveredAt && Date.now() < killedAt + RECOVERY_SECONDS * 1000;
    const launcher = async () => {
      while (Date.now() < end || outageOpen()) {
        const sent = Date.now();
        const answer = await chaos.call('POST', '/jobs', chaos.operator, LAUNCH, 10_000);
        if (answer.status === 202) {
          counts.launched++;
          launched.push(answer.body.jobId);
          if (killedAt && sent >= killedAt) {
            acceptedAfterKill++;
            slowestAfterKill = Math.max(slowestAfterKill, answer.ms);
          }
          // Recovered at the first launch accepted after the outage showed (not one already in flight at the kill).
          if (outageShown() && !recoveredAt) recoveredAt = Date.now();
        } else if (answer.status === 503 && answer.body?.error?.code === 'queue_unavailable') {
          counts.unavailable++;
          slowest503 = Math.max(slowest503, answer.ms);
          await sleep(20);
        } else {
          counts.otherErrors++;
          await sleep(20);
        }
      }
    };
    const reader = async () => {
      while (Date.now() < end) {
        const answer = await chaos.call('GET', '/jobs/active', undefined, undefined, 10_000);
        if (answer.status === 200) counts.reads++;
        else counts.readErrors++;
        await sleep(20);
      }
    };
    const killer = async () => {
      await sleep(KILL_AT_SECONDS * 1000);
      killedAt = Date.now();
      process.kill(redisBefore, 'SIGKILL');
    };
    await Promise.all([launcher(), launcher(), launcher(), launcher(), reader(), killer()]);

    // Drain: every job queued before the kill must be claimable exactly once.
    const claimed = new Set<string>();
    for (;;) {
      const answer = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN);
      if (answer.status !== 200) break;
      claimed.add(answer.body.jobId);
    }
    const lostBefore = [...before].filter((id) => !claimed.has(id)).length;
    const lostLaunched = launched.filter((id) => !claimed.has(id)).length;
    const restarted = chaos.service.pid('redis') !== redisBefore;
    const outageSeen = outageShown();
    const recovery = recoveredAt
      ? `${((recoveredAt - killedAt) / 1000).toFixed(2)} s`
      : outageSeen ? `not within ${RECOVERY_SECONDS} s` : `no 503: the launches waited it out, the slowest ${slowestAfterKill.toFixed(0)} ms`;
    printFigures({
      'jobs queued before the kill': QUEUED,
      'launches accepted (202)': counts.launched,
      '503 queue_unavailable answers': counts.unavailable,
      'slowest 503 (ms)': slowest503.toFixed(0),
      'other error answers (5xx or refused)': counts.otherErrors,
      'reads served / failed': `${counts.reads} / ${counts.readErrors}`,
      'Redis restarted (new pid)': restarted,
      'launches sent after the kill and accepted': acceptedAfterKill,
      'recovery (kill to next 202)': recovery,
      'jobs queued before the kill, lost': lostBefore,
      'accepted launches not claimable afterwards': lostLaunched,
    });
    return judge(
      { lost: lostBefore + lostLaunched, '503 queue_unavailable': counts.unavailable, 'slowest 503': `${slowest503.toFixed(0)} ms`, 'other errors': counts.otherErrors, 'failed reads': counts.readErrors, recovered: recovery },
      {
        'Redis was restarted': restarted,
        'launches recovered by themselves': outageSeen ? recoveredAt > 0 : acceptedAfterKill > 0,
        'launches answered 202 or 503 queue_unavailable (no 500, no hang)': counts.otherErrors === 0,
        'reads kept working': counts.readErrors === 0,
        'no job queued before the kill lost': lostBefore === 0,
        'every accepted launch claimable': lostLaunched === 0,
      },
    );
  } finally {
    await chaos.close();
  }
}

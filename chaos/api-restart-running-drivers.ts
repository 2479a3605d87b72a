/**
 * kill -9 of the API process while drivers run their jobs: the drivers live outside the API
 * and keep going, retrying while it is down; after the supervisor's restart their event
 * relays and final `succeeded` reports (with records) are accepted, and every record is stored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runRecord } from '../test/helpers/run-record-builder.js';
import { enqueue, LAUNCH, printFigures, SERVICE_TOKEN, startChaosService, type Answer, type ChaosService } from './lib/chaos-service.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const JOBS = 200;
const RUN_SECONDS = 8;
const KILL_AT_SECONDS = 2;
const EVENT_EVERY_MS = 250;

/** Sends until an answer other than a refused connection or a 5xx; counts both kinds of retry. */
async function persist(chaos: ChaosService, counts: { refused: number; serverErrors: number }, send: () => Promise<Answer>): Promise<Answer> {
  for (;;) {
    const answer = await send();
    if (answer.status !== 0 && answer.status < 500) return answer;
    if (answer.status === 0) counts.refused++;
    else counts.serverErrors++;
    await sleep(100);
  }
}

export default async function apiRestartRunningDrivers(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  try {
    const ids = new Set(await enqueue(chaos, JOBS));
    const claims: Array<{ jobId: string; jobToken: string }> = [];
    for (let answer = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN); answer.status === 200; answer = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN)) {
      claims.push({ jobId: answer.body.jobId, jobToken: answer.body.jobToken });
    }
    const counts = { refused: 0, serverErrors: 0, eventsAccepted: 0, eventsRefused: 0, runningRefused: 0, finalAccepted: 0, finalRefused: 0 };
    const apiBefore = chaos.service.pid('api')!;
    const records = new Map<string, string>();
    let killedAt = 0;
    let backAt = 0;

    const drive = async ({ jobId, jobToken }: { jobId: string; jobToken: string }) => {
      const running = await persist(chaos, counts, () => chaos.call('POST', `/jobs/${jobId}/status`, jobToken, { state: 'running' }));
      if (running.status !== 204) counts.runningRefused++;
      const end = Date.now() + RUN_SECONDS * 1000;
      for (let step = 0; Date.now() < end; step++) {
        const answer = await persist(chaos, counts, () => chaos.call('POST', `/jobs/${jobId}/events`, jobToken, [{ step }], 10_000));
        if (answer.status === 204) counts.eventsAccepted++;
        else counts.eventsRefused++;
        // Back at the first event accepted once connections were refused (not one in flight at the kill).
        if (counts.refused > 0 && !backAt && answer.status === 204) backAt = Date.now();
        await sleep(EVENT_EVERY_MS);
      }
      const record = runRecord({ slug: LAUNCH.testCase, version: LAUNCH.version, variant: LAUNCH.variant, harness: LAUNCH.harness, model: LAUNCH.model });
      records.set(jobId, String(record.id));
      const final = await persist(chaos, counts, () => chaos.call('POST', `/jobs/${jobId}/status`, jobToken, { state: 'succeeded', record }, 30_000));
      if (final.status === 204) counts.finalAccepted++;
      else counts.finalRefused++;
    };
    const killer = (async () => {
      await sleep(KILL_AT_SECONDS * 1000);
      killedAt = Date.now();
      process.kill(apiBefore, 'SIGKILL');
    })();
    await Promise.all([killer, ...claims.map(drive)]);

    const redis = chaos.redis();
    await redis.connect();
    const states = new Map<string, number>();
    let stored = 0;
    let mismatched = 0;
    for (const { jobId } of claims) {
      const job = (await chaos.call('GET', `/jobs/${jobId}`)).body as { state: string; recordId: string | null };
      states.set(job.state, (states.get(job.state) ?? 0) + 1);
      if (job.state === 'succeeded' && job.recordId === records.get(jobId)) stored++;
      if ((await redis.hget(chaos.keys.run(jobId), 'state')) !== job.state) mismatched++;
    }
    const restarted = chaos.service.pid('api') !== apiBefore;
    const down = backAt ? `${((backAt - killedAt) / 1000).toFixed(2)} s` : 'no outage seen';
    printFigures({
      'jobs claimed and running': `${claims.length} of ${ids.size}`,
      'API restarted (new pid)': restarted,
      'down (kill to next accepted event)': down,
      'refused connections while down': counts.refused,
      '5xx answers': counts.serverErrors,
      'events accepted / refused': `${counts.eventsAccepted} / ${counts.eventsRefused}`,
      'running reports refused': counts.runningRefused,
      'final reports accepted / refused': `${counts.finalAccepted} / ${counts.finalRefused}`,
      'final states': [...states].map(([state, count]) => `${state} ${count}`).join(', '),
      'records stored': `${stored} of ${claims.length}`,
      'SQLite/Redis disagreements': mismatched,
    });
    return judge(
      { 'records stored': `${stored} of ${claims.length}`, 'reports refused': counts.runningRefused + counts.eventsRefused + counts.finalRefused, 'SQLite/Redis disagreements': mismatched, down },
      {
        'every job was claimed': claims.length === ids.size,
        'the API was restarted': restarted,
        'every running report, event and final report accepted': counts.runningRefused + counts.eventsRefused + counts.finalRefused === 0,
        'every record stored': stored === claims.length,
        'SQLite agrees with Redis': mismatched === 0,
      },
    );
  } finally {
    await chaos.close();
  }
}

/**
 * The store is deleted while the service is stopped and Redis keeps its jobs: the next start
 * is refused with what to do (restore the store, or start once with DISCARD_REDIS_OF_STORE),
 * instead of serving an empty store while Redis hands out jobs it has no row for; started as
 * told, the service drops the old jobs and serves the new store.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { enqueue, printFigures, SERVICE_TOKEN, startChaosService } from './lib/chaos-service.js';
import { SupervisedService } from './lib/supervised-service.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const JOBS = 50;

export default async function storeDeleted(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  const { dataDir } = chaos.service.options;
  const restarted: SupervisedService[] = [];
  try {
    await enqueue(chaos, JOBS);
    await chaos.service.stop();
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `backend.sqlite${suffix}`), { force: true });

    const refusedStart = new SupervisedService(chaos.service.options);
    restarted.push(refusedStart);
    const refusal = await refusedStart.start(60_000).then(() => null, () => refusedStart.log.find((line) => line.includes('DISCARD_REDIS_OF_STORE=')) ?? null);
    const named = /DISCARD_REDIS_OF_STORE=([0-9a-f]{32}|none)/.exec(refusal ?? '')?.[1];

    let claimsAfterDiscard = 'not tried';
    if (named) {
      const told = new SupervisedService({ ...chaos.service.options, env: { ...chaos.service.options.env, DISCARD_REDIS_OF_STORE: named } });
      restarted.push(told);
      await told.start();
      const claim = await fetch(`${told.url}/jobs/next`, { method: 'POST', headers: { authorization: `Bearer ${SERVICE_TOKEN}` } });
      claimsAfterDiscard = claim.status === 204 ? 'none (204)' : `${claim.status}`;
    }
    printFigures({
      'jobs queued before the store was deleted': JOBS,
      'start on the recreated store refused': refusal !== null,
      'refusal names the store to discard': named ?? 'no',
      'claimable jobs after a start with DISCARD_REDIS_OF_STORE': claimsAfterDiscard,
    });
    if (refusal) console.log(`  refusal: ${refusal.replace(/^.*The service could not start: /, '')}`);
    return judge(
      { 'start refused': refusal !== null, 'store named': named ?? 'no', 'claimable after the discard': claimsAfterDiscard },
      {
        'the start on the recreated store was refused': refusal !== null,
        'the refusal named the store to discard': named !== undefined,
        'no old job claimable after a start with DISCARD_REDIS_OF_STORE': claimsAfterDiscard === 'none (204)',
      },
    );
  } finally {
    for (const service of restarted) await service.stop();
    await chaos.close();
  }
}

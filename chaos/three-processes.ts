/**
 * Several machines proved on one, full size (issue 33): one PostgreSQL, one Redis and one
 * local S3 server of the scenario's own, three API processes with their own DATA_DIR and
 * port, and one worker. 32 dispatchers spread over the three claim 20,000 jobs while the
 * second is killed with SIGKILL and restarted: none claimed twice, none lost, every one
 * terminal, the store agreeing with Redis; files ingested or uploaded through one process are
 * served by the others and reach the snapshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgresBinaries, startManagedPostgres } from '../src/db/managed-postgres.js';
import { startManagedRedis } from '../src/redis/managed-redis.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { printFigures } from './lib/chaos-service.js';
import { judge, skipped, type ScenarioResult } from './lib/scenario-result.js';
import { proveThreeProcesses, startThreeProcesses } from './lib/three-processes.js';

const SIZE = { jobs: 20_000, dispatchers: 32, killAfterClaims: 6000 };
const PREFIX = 'chaos-three';

export default async function threeProcesses(): Promise<ScenarioResult> {
  if (!findPostgresBinaries()) return skipped('no PostgreSQL server binaries (initdb, postgres) on this machine');
  const dir = mkdtempSync(join(tmpdir(), 'evb-chaos-three-'));
  // A folder of its own, which the server's user is handed (it could not enter one under `dir`).
  const pgDir = mkdtempSync(join(tmpdir(), 'evb-pg-'));
  const postgres = await startManagedPostgres({ dir: pgDir });
  const redis = await startManagedRedis({ dir: join(dir, 'redis'), persistent: false });
  const s3 = await startTestS3();
  try {
    const engines = { databaseUrl: await postgres.createDatabase('three'), redisUrl: redis.url, blobEnv: s3.env('three') };
    const deployment = await startThreeProcesses(engines, PREFIX);
    try {
      const figures = await proveThreeProcesses(deployment, engines, PREFIX, SIZE);
      printFigures(figures);
      return judge(
        {
          'claims/s': figures['claims per second'],
          'claimed twice': figures['double claims'],
          lost: figures['jobs lost'],
          'not terminal': figures['jobs not terminal'],
          healed: figures['heal (kill to first answer of the restarted API)'],
        },
        {
          'every job claimed': figures['claims answered'] + figures['claims cut off by the kill (failed by the lease)'] === SIZE.jobs,
          'no job claimed twice': figures['double claims'] === 0,
          'no job lost': figures['jobs lost'] === 0,
          'every job terminal': figures['jobs not terminal'] === 0,
          'the store agrees with Redis': figures['store/Redis disagreements'] === 0,
          'no 5xx answer': figures['5xx answers'] === 0,
          'the killed API came back and answered': figures['heal (kill to first answer of the restarted API)'] !== 'not seen',
          'versions and reference PNGs served by the other APIs': figures['versions resolved by the other APIs'] && figures['reference PNG served by the other APIs'],
          'a showcase crossed processes into the snapshot': figures['showcase served by another API and in the snapshot'],
        },
      );
    } finally {
      await deployment.close();
    }
  } finally {
    await s3.close();
    await redis.stop();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}

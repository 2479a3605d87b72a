import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { proveThreeProcesses, startThreeProcesses, type SharedEngines, type ThreeProcesses } from '../../chaos/lib/three-processes.js';
import { dropTestDatabase, testDatabase } from '../helpers/postgres.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { TEST_ENGINE } from '../helpers/test-backend.js';

// Three API processes and a worker on one PostgreSQL, one Redis and one bucket (issue 33). It
// always runs on PostgreSQL, whichever half of `npm test` runs it, so only the SQLite half
// does: the PostgreSQL half would run the same thing twice.
const PREFIX = `three-${process.pid}`;
let s3: TestS3Server;
let engines: SharedEngines;
let deployment: ThreeProcesses;

describe.skipIf(TEST_ENGINE === 'postgres')('three API processes sharing PostgreSQL, Redis and a bucket', () => {
  beforeAll(async () => {
    s3 = await startTestS3();
    engines = { databaseUrl: await testDatabase({ migrated: true }), redisUrl: inject('redisUrl'), blobEnv: s3.env('three') };
    deployment = await startThreeProcesses(engines, PREFIX);
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
    if (engines) await dropTestDatabase(engines.databaseUrl);
    await s3?.close();
  });

  it('claims every job once while one API process is killed and restarted, and serves one files ingested or uploaded through another', async () => {
    const figures = await proveThreeProcesses(deployment, engines, PREFIX, { jobs: 2000, dispatchers: 8, killAfterClaims: 600 });
    expect(figures).toMatchObject({
      'jobs enqueued': 2000,
      'double claims': 0,
      'jobs lost': 0,
      'jobs not terminal': 0,
      'store/Redis disagreements': 0,
      '5xx answers': 0,
      'versions resolved by the other APIs': true,
      'reference PNG served by the other APIs': true,
      'showcase served by another API and in the snapshot': true,
    });
    expect(figures['heal (kill to first answer of the restarted API)']).toMatch(/^\d+\.\d\d s$/);
    // Every process answered claims; the heal figure says the restarted one answered again.
    expect(figures['claims answered by each API'].split(' / ').map(Number).every((claims) => claims > 0)).toBe(true);
  }, 240_000);
});

/**
 * `npm run chaos [scenario]`: the fault scenarios, each against a real `npm start`
 * (supervisor, managed Redis, auth service, API) on its own ports and temporary DATA_DIR,
 * each printing its figures and judging them. Ends with one table of every scenario run and
 * its verdict, and exits 1 when any failed. Minutes long; `npm test` keeps the fast versions.
 */
import apiKillClaimStorm from './api-kill-claim-storm.js';
import apiRedisPartition from './api-redis-partition.js';
import apiRestartRunningDrivers from './api-restart-running-drivers.js';
import authKill from './auth-kill.js';
import bucketSlowReaders from './bucket-slow-readers.js';
import diskFull from './disk-full.js';
import { machineLine } from './lib/chaos-service.js';
import { resultTable, unfinished, type ScenarioResult } from './lib/scenario-result.js';
import killNpmStart from './kill-npm-start.js';
import neverReadingLive from './never-reading-live.js';
import neverReadingStreams from './never-reading-streams.js';
import postgresOutageClaimStorm from './postgres-outage-claim-storm.js';
import redisKillUnderLoad from './redis-kill-under-load.js';
import rollingRestart from './rolling-restart.js';
import routeFuzz from './route-fuzz.js';
import slowBody from './slow-body.js';
import storeDeleted from './store-deleted.js';
import storePause from './store-pause.js';
import streamCaps from './stream-caps.js';
import threeProcesses from './three-processes.js';

const only = process.argv[2];
const scenarios: Array<[string, () => Promise<ScenarioResult>]> = [
  ['api-kill-claim-storm', apiKillClaimStorm],
  ['api-restart-running-drivers', apiRestartRunningDrivers],
  ['redis-kill-under-load', redisKillUnderLoad],
  ['auth-kill', authKill],
  ['never-reading-live', neverReadingLive],
  ['never-reading-streams', neverReadingStreams],
  ['slow-body', slowBody],
  ['stream-caps', streamCaps],
  ['kill-npm-start', killNpmStart],
  ['route-fuzz', routeFuzz],
  ['disk-full', diskFull],
  ['store-deleted', storeDeleted],
  ['store-pause', storePause],
  ['postgres-outage-claim-storm', postgresOutageClaimStorm],
  ['three-processes', threeProcesses],
  ['bucket-slow-readers', bucketSlowReaders],
  ['rolling-restart', rollingRestart],
  ['api-redis-partition', apiRedisPartition],
];
if (only && !scenarios.some(([name]) => name === only)) {
  console.error(`Unknown scenario "${only}". Use one of: ${scenarios.map(([name]) => name).join(', ')}.`);
  process.exit(2);
}
const results: Array<{ name: string; seconds: number; result: ScenarioResult }> = [];
for (const [name, run] of scenarios) {
  if (only && only !== name) continue;
  console.log(`\n=== ${name} ===\n${machineLine()}`);
  const began = Date.now();
  // A scenario that throws fails, saying why, and the others still run.
  const result = await run().catch((error: unknown) => {
    console.error(error);
    return unfinished(error);
  });
  const seconds = (Date.now() - began) / 1000;
  console.log(`  ${result.verdict}${result.reasons.length ? `: ${result.reasons.join('; ')}` : ''} (${seconds.toFixed(0)} s)`);
  results.push({ name, seconds, result });
}
console.log(`\n${machineLine()}\n${resultTable(results)}`);
const count = (verdict: ScenarioResult['verdict']) => results.filter(({ result }) => result.verdict === verdict).length;
console.log(`\n${results.length} scenarios: ${count('PASS')} passed, ${count('FAIL')} failed, ${count('SKIP')} skipped`);
if (count('FAIL')) process.exitCode = 1;

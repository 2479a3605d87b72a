/**
 * The disk under DATA_DIR fills up (a small tmpfs, topped up with a filler file) while
 * launches, claims, logins and reads go on; the API is killed meanwhile and restarts on the
 * full disk; then room returns. Writes answer 503 storage_full (never 500), reads and
 * /healthz go on answering, the restarted API listens, everything resumes by itself, and no
 * acknowledged launch or claim is lost. Mounting needs root: skipped, saying so, without it.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { enqueue, LAUNCH, printFigures, SERVICE_TOKEN, startChaosService, type Answer } from './lib/chaos-service.js';
import { judge, skipped, type ScenarioResult } from './lib/scenario-result.js';

const DISK_MIB = 192;
const STORM_MS = 10_000;
/** Queued before the disk fills, so the storm's claims have jobs to take. */
const QUEUED = 200;

export default async function diskFull(): Promise<ScenarioResult> {
  const mountPoint = mkdtempSync(join(tmpdir(), 'evb-chaos-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_MIB}m`, 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    const reason = `a small filesystem cannot be mounted here (${String((error as Error).message).split('\n')[0]}); it needs root`;
    console.log(`  skipped: ${reason}`);
    return skipped(reason);
  }
  try {
    return await run(mountPoint);
  } finally {
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
}

async function run(mountPoint: string): Promise<ScenarioResult> {
  const dataDir = join(mountPoint, 'data');
  const chaos = await startChaosService({ AUTH_CACHE_SECONDS: '0' }, { dataDir });
  const filler = join(mountPoint, 'filler');
  try {
    const login = () => fetch(`http://127.0.0.1:${chaos.service.options.authPort}/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'chaos', password: 'chaos-password' }),
    }).then(async (response) => ({ status: response.status, body: await response.json().catch(() => null), ms: 0 }), () => ({ status: 0, body: null, ms: 0 }));
    const queued = await enqueue(chaos, QUEUED);
    fill(filler);

    const counts: Record<string, Record<string, number>> = {};
    const count = (kind: string, answer: Answer) => {
      const outcome = answer.status === 503 ? `503 ${answer.body?.error?.code}` : String(answer.status);
      (counts[kind] ??= {})[outcome] = (counts[kind]![outcome] ?? 0) + 1;
    };
    const answeredOtherThan200 = (kind: string) => Object.entries(counts[kind] ?? {}).filter(([outcome]) => outcome !== '200').reduce((sum, [, n]) => sum + n, 0);
    const launched: string[] = [...queued];
    const claimed: string[] = [];
    const storm = async (until: number) => {
      while (Date.now() < until) {
        const launch = await chaos.call('POST', '/jobs', chaos.operator, LAUNCH, 10_000);
        count('launch', launch);
        if (launch.status === 202) launched.push(launch.body.jobId);
        const claim = await chaos.call('POST', '/jobs/next', SERVICE_TOKEN, undefined, 10_000);
        count('claim', claim);
        if (claim.status === 200) claimed.push(claim.body.jobId);
        count('login', await login());
        count('read', await chaos.call('GET', '/jobs/active', chaos.operator, undefined, 10_000));
        count('healthz', await chaos.call('GET', '/healthz', undefined, undefined, 10_000));
      }
    };
    await storm(Date.now() + STORM_MS);
    // An API restarted on the full disk may boot degraded, serving only health: reads count until the kill.
    const readFailuresBeforeKill = answeredOtherThan200('read');

    // The API dies and its supervisor starts it again on the full disk.
    const apiBefore = chaos.service.pid('api')!;
    process.kill(apiBefore, 'SIGKILL');
    const killedAt = Date.now();
    await chaos.service.waitFor(async () => chaos.service.pid('api') !== apiBefore && (await chaos.service.healthy()), 60_000, 'the API to listen again');
    const listenedAfterMs = Date.now() - killedAt;
    const readyWhileFull = await chaos.call('GET', '/readyz');
    await storm(Date.now() + STORM_MS / 2);

    rmSync(filler, { force: true });
    const freedAt = Date.now();
    let resumedMs = -1;
    while (Date.now() - freedAt < 60_000) {
      const launch = await chaos.call('POST', '/jobs', chaos.operator, LAUNCH, 10_000);
      if (launch.status === 202) {
        launched.push(launch.body.jobId);
        resumedMs = Date.now() - freedAt;
        break;
      }
      await sleep(200);
    }
    // Claims answered while full are written once the store takes writes (or copied from Redis).
    await sleep(3000);
    let launchesLost = 0;
    for (const id of launched) if ((await chaos.call('GET', `/jobs/${id}`, chaos.operator)).status !== 200) launchesLost++;
    let claimsLost = 0;
    for (const id of claimed) {
      const job = await chaos.call('GET', `/jobs/${id}`, chaos.operator);
      if (job.status !== 200 || job.body.state === 'queued') claimsLost++;
    }
    const serverFaults = Object.values(counts).reduce((sum, outcomes) => sum + (outcomes['500'] ?? 0), 0);
    const resumed = resumedMs < 0 ? 'never' : `${(resumedMs / 1000).toFixed(1)} s`;
    const figures: Record<string, string | number | boolean> = {};
    for (const [kind, outcomes] of Object.entries(counts)) {
      figures[`${kind} answers`] = Object.entries(outcomes).map(([outcome, n]) => `${outcome}: ${n}`).join(', ');
    }
    Object.assign(figures, {
      '500 answers in all': serverFaults,
      'API listening again after kill -9 (s)': (listenedAfterMs / 1000).toFixed(1),
      'its /readyz while full': `${readyWhileFull.status} ${readyWhileFull.body?.status ?? ''}`,
      'a launch lands once room returns after': resumed,
      'acknowledged launches lost': `${launchesLost} of ${launched.length}`,
      'answered claims not in SQLite': `${claimsLost} of ${claimed.length}`,
      'claim-writer log lines': chaos.service.log.filter((line) => line.includes('SQLite refuses claim writes')).length,
    });
    printFigures(figures);
    return judge(
      {
        '500': serverFaults,
        'failed reads before the kill / health': `${readFailuresBeforeKill} / ${answeredOtherThan200('healthz')}`,
        'listening after kill -9': `${(listenedAfterMs / 1000).toFixed(1)} s`,
        resumed,
        'launches lost': `${launchesLost} of ${launched.length}`,
        'claims lost': `${claimsLost} of ${claimed.length}`,
      },
      {
        'no 500 answer': serverFaults === 0,
        'reads (until the kill) and /healthz kept answering': readFailuresBeforeKill + answeredOtherThan200('healthz') === 0,
        'the restarted API reported storage-full in /readyz': readyWhileFull.status === 503 && readyWhileFull.body?.status === 'storage-full',
        'launches landed again within 60 s of room returning': resumedMs >= 0,
        'no acknowledged launch lost': launchesLost === 0,
        'no answered claim lost': claimsLost === 0,
      },
    );
  } finally {
    rmSync(filler, { force: true });
    await chaos.close();
  }
}

/** Writes a file until the filesystem has no room left. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(1024 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch {
    // ENOSPC: full. Top up what a whole block did not fit.
    try {
      for (;;) writeSync(fd, block.subarray(0, 4096));
    } catch {
      // Full to the page.
    }
  } finally {
    closeSync(fd);
  }
}

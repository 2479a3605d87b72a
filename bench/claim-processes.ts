/**
 * Claim throughput with N API processes (issue 33): `npm run bench -- claim --api-processes
 * [1,2,3]`. For each N, a layout of its own (chaos/lib/three-processes.ts): the auth service
 * and N API processes as child processes on their own ports and DATA_DIRs, sharing one
 * PostgreSQL cluster (a database per layout) and one Redis (a prefix per layout). Every layout
 * is filled up front, through the real enqueue path of an app in this process over the same
 * database and prefix, and warmed with WARM_PER_API untimed claims per API process; then the
 * layouts are timed in turns, round by round, each resumed
 * (SIGCONT) for its turn and paused (SIGSTOP) after it, so a paused layout takes no CPU and
 * every N sees the same moments of a shared machine. In a turn, 32 dispatchers per API process
 * on a worker thread, dealt over the layout's API processes, claim CLAIMS jobs after WARMUP untimed ones;
 * the whole machine's CPU over the turn is read from /proc/stat. Every claim is tallied by
 * job id (0 double, 0 lost) and the layout's dispatched rows are counted in its database.
 */
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { SERVICE_TOKEN, startThreeProcesses, type ThreeProcesses } from '../chaos/lib/three-processes.js';
import { redisOptionsFromUrl } from '../src/redis/managed-redis.js';
import { benchRedis } from './lib/bench-redis.js';
import { benchPostgres } from './lib/bench-store.js';
import { startClaimApp } from './lib/claim-app.js';
import type { DispatchInput, DispatchOutput, DispatchRun } from './lib/dispatch-worker.js';
import { machineLine } from './lib/machine.js';
import { runWorker } from './lib/run-worker.js';
import { printTable } from './lib/stats.js';
import { tallyClaims } from './lib/tally-claims.js';

const DEFAULT_COUNTS = [1, 2, 3];
/**
 * Dispatchers per API process: a layout of N processes is driven by N times as many, as a
 * deployment adds API processes for more dispatchers. The same dispatchers spread over more
 * processes would halve each process's claim batches by construction (a closed-loop
 * dispatcher waits for its answer before it asks again, so a process batches at most the
 * claims its own dispatchers have in flight): on two quiet Xeon vCPUs 32 dispatchers in all
 * cost 1.30x N = 1's CPU per claim with 2 processes and 1.50x with 3, with 10.6, 5.5 and 4.5
 * claims per claim script call. Per process, the load here is the same at every N, so what
 * the ratio judges is what sharing PostgreSQL and Redis between processes costs.
 */
const DISPATCHERS_PER_API = 32;
const dispatchersOf = (layout: Layout) => DISPATCHERS_PER_API * layout.n;
/** Timed claims per layout per turn. */
const CLAIMS = 15_000;
/** Untimed claims on the same sockets before each turn's timed ones: the resumed processes' caught-up timers and cold pools. */
const WARMUP = 2000;
/**
 * Untimed claims per API process once, before the first round: V8 optimises a function after
 * enough calls, so a process that served fewer claims runs more of its code unoptimised, and
 * optimises it on its compiler threads meanwhile. Without this phase, each of N processes
 * had served 1/N of N = 1's claims when timed: on two quiet Xeon vCPUs its API processes spent
 * 6.7 µs per claim on those threads against 3.2 at N = 1, and 4 µs against 4.5 after 50,000
 * claims each. A deployment runs warm; this measures it warm.
 */
const WARM_PER_API = 30_000;
const ROUNDS = 3;
/** CPU per claim with N API processes may be at most this many times N = 1's (issue 33, on a machine without spare cores). */
const TARGET_CPU_RATIO = 1.15;
/**
 * Cores a layout needs besides its API processes to have a spare one: the dispatchers' one
 * thread, Redis and PostgreSQL, each able to take a core under this load.
 */
const CORES_BESIDE_APIS = 3;
/** How long a turn's claim rows may take to reach the store after its last answer (ms). */
const SETTLE_MS = 30_000;
/** PostgreSQL's backends report their transaction counts at most this often (ms) once idle, plus a margin. */
const STATS_FLUSH_MS = 1500;
/**
 * A layout's turns saw a crowded machine when it was at least this busy over them and the
 * bench's processes took less than CROWDED_OWN_SHARE of that: the rest was others' work.
 */
const CROWDED_BUSY = 0.95;
const CROWDED_OWN_SHARE = 0.8;

const FLAG = '--api-processes';

/**
 * The N of `--api-processes` on the command line: a comma-separated list (`1,2,3`, the
 * default when the flag has no list); null without the flag.
 */
export function apiProcessCounts(argv: readonly string[] = process.argv): number[] | null {
  const at = argv.indexOf(FLAG);
  if (at === -1) return null;
  const given = argv[at + 1];
  if (given === undefined || given.startsWith('--') || !/^\d/.test(given)) return DEFAULT_COUNTS;
  const counts = given.split(',').map(Number);
  if (!counts.every((n) => Number.isInteger(n) && n >= 1 && n <= 16)) throw new Error(`${FLAG} takes a list of counts from 1 to 16, like 1,2,3, not ${given}`);
  return [...new Set(counts)].sort((a, b) => a - b);
}

interface Layout {
  n: number;
  deployment: ThreeProcesses;
  store: pg.Client;
  /** Statements this bench ran on the layout's database itself, so not the API processes' commits. */
  ownStatements: number;
  ids: string[];
  claimed: string[];
  turns: DispatchRun[];
  errors: number;
  /** Over the turns, warmups included: claims, Redis commands, claim script calls. */
  redis: { claims: number; commands: number; scripts: number };
  /** Transactions committed on the layout's database from its fill to its end. */
  commits: number;
}

/** Every command Redis has run, and its script calls (the claim is one, by EVALSHA), from INFO commandstats. */
async function redisCalls(redis: Redis): Promise<{ commands: number; scripts: number }> {
  const stats = await redis.info('commandstats');
  let commands = 0;
  let scripts = 0;
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    commands += Number(calls);
    if (name === 'evalsha' || name === 'eval') scripts += Number(calls);
  }
  return { commands, scripts };
}

/**
 * Transactions committed on the layout's database so far (pg_stat_database). A backend
 * reports its counts at most once a second once idle, so this waits for that first.
 */
async function committed(layout: Layout): Promise<number> {
  await sleep(STATS_FLUSH_MS);
  layout.ownStatements += 1;
  const { rows } = await layout.store.query<{ commits: string }>('SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]!.commits);
}

/**
 * CPU per claim over one or more turns (µs): the whole machine's, and the part of it the
 * bench's own processes spent (this one with the dispatchers' thread, the API processes,
 * Redis, PostgreSQL), from their ticks; and the rate.
 */
function measure(turns: DispatchRun[]) {
  const cores = cpus().length;
  const sum = (of: (turn: DispatchRun) => number) => turns.reduce((total, turn) => total + of(turn), 0);
  const claims = sum((turn) => turn.claimed.length);
  const seconds = sum((turn) => turn.seconds);
  const total = sum((turn) => turn.machine!.total);
  // Ticks are a share of the cores over the turns' seconds.
  const perClaim = (ticks: number) => ((ticks / total) * cores * seconds * 1e6) / claims;
  const programs = [...new Set(turns.flatMap((turn) => Object.keys(turn.machine!.ownByProgram)))];
  return {
    claims, rate: claims / seconds, busy: sum((turn) => turn.machine!.busy) / total, cpuUs: perClaim(sum((turn) => turn.machine!.busy)), ownUs: perClaim(sum((turn) => turn.machine!.own)),
    byProgramUs: Object.fromEntries(programs.map((program) => [program, perClaim(sum((turn) => turn.machine!.ownByProgram[program] ?? 0))])),
  };
}

async function dispatchedRows(layout: Layout): Promise<number> {
  layout.ownStatements += 1;
  const { rows } = await layout.store.query<{ count: string }>(`SELECT COUNT(*) AS count FROM jobs WHERE state = 'dispatched' AND token_hash IS NOT NULL`);
  return Number(rows[0]!.count);
}

/** Claim rows are written just behind their answers: waits until the layout's store holds every claim so far. */
async function settle(layout: Layout): Promise<void> {
  const expected = layout.claimed.length;
  for (const deadline = Date.now() + SETTLE_MS; (await dispatchedRows(layout)) < expected;) {
    if (Date.now() > deadline) throw new Error(`${layout.n} API processes: the store holds fewer than ${expected} dispatched rows ${SETTLE_MS} ms after the turn`);
    await sleep(20);
  }
}

/**
 * Resumes the layout, runs its dispatchers on `input`, keeps every job they claimed (the
 * warmup's too) and their errors, waits for the claims' rows in the store, and pauses the
 * layout again. With `redis`, the Redis commands and claim script calls over the run are
 * added to the layout's figures.
 */
async function dispatchOn(layout: Layout, input: Pick<DispatchInput, 'limit' | 'warmup'>, redis?: Redis): Promise<DispatchOutput> {
  layout.deployment.pause(false);
  const before = redis && await redisCalls(redis);
  const run = await runWorker<DispatchInput, DispatchOutput>('dispatch-worker', {
    base: layout.deployment.apis.map((api) => api.url), token: SERVICE_TOKEN, dispatchers: dispatchersOf(layout), ...input,
  });
  if (redis && before) {
    const after = await redisCalls(redis);
    // Less the INFO call itself.
    layout.redis.commands += after.commands - before.commands - 1;
    layout.redis.scripts += after.scripts - before.scripts;
    layout.redis.claims += run.warmupClaimed.length + run.claimed.length;
  }
  layout.claimed.push(...run.warmupClaimed, ...run.claimed);
  layout.errors += run.errors;
  await settle(layout);
  layout.deployment.pause(true);
  return run;
}

/** A layout warmed once before the rounds: WARM_PER_API claims per API process, neither timed nor counted in its figures. */
const warm = (layout: Layout) => dispatchOn(layout, { limit: WARM_PER_API * layout.n });

/** One layout's turn: WARMUP then CLAIMS claims timed. */
async function turn(layout: Layout, redis: Redis): Promise<void> {
  layout.turns.push(await dispatchOn(layout, { limit: CLAIMS, warmup: WARMUP }, redis));
}

const us = (value: number) => `${value.toFixed(1)} µs`;
/**
 * The bench's processes' CPU per claim less the dispatchers' thread (this process): what the
 * API processes, Redis and PostgreSQL spent. The dispatchers are part of the whole machine's
 * figure the targets judge, and they cost more per claim when one API process answers them
 * all, so this one says what the served side alone does with N.
 */
const servedUs = (m: ReturnType<typeof measure>) => m.ownUs - (m.byProgramUs['this process'] ?? 0);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

export async function benchClaimProcesses(counts: number[]): Promise<boolean> {
  console.log(`\n${machineLine()}`);
  const cluster = await benchPostgres();
  const redis = await benchRedis({ own: true });
  const layouts: Layout[] = [];
  const redisClient = new Redis(redisOptionsFromUrl(redis.url));
  try {
    for (const n of counts) {
      const databaseUrl = await cluster.createDatabase(`claim_processes_${n}`);
      const prefix = `procs${n}`;
      const deployment = await startThreeProcesses({ databaseUrl, redisUrl: redis.url, blobEnv: {} }, prefix, { apis: n, worker: false });
      const store = new pg.Client({ connectionString: databaseUrl });
      const layout: Layout = { n, deployment, store, ownStatements: 0, ids: [], claimed: [], turns: [], errors: 0, redis: { claims: 0, commands: 0, scripts: 0 }, commits: 0 };
      layouts.push(layout);
      await store.connect();
      const filler = await startClaimApp(redis.url, { DATABASE_URL: databaseUrl, REDIS_PREFIX: prefix });
      try {
        layout.ids = await filler.fill(WARM_PER_API * n + ROUNDS * (WARMUP + CLAIMS));
      } finally {
        await filler.close();
      }
      deployment.pause(true);
      layout.commits = -(await committed(layout));
      layout.ownStatements = 0;
    }
    for (const layout of layouts) await warm(layout);
    for (let round = 0; round < ROUNDS; round += 1) {
      // The order turns each round, so no layout always follows the same one.
      for (let i = 0; i < layouts.length; i += 1) await turn(layouts[(round + i) % layouts.length]!, redisClient);
    }
    // Anything left is claimed too, so a job the turns missed counts as claimed late, not lost.
    for (const layout of layouts) {
      await dispatchOn(layout, { limit: Number.MAX_SAFE_INTEGER });
      layout.commits += await committed(layout) - layout.ownStatements;
    }
    return await report(layouts);
  } finally {
    redisClient.disconnect();
    for (const layout of layouts) {
      await layout.store.end().catch(() => {});
      await layout.deployment.close();
    }
    await redis.stop();
    await cluster.stop();
  }
}

async function report(layouts: Layout[]): Promise<boolean> {
  if (layouts.some((layout) => layout.turns.some((run) => !run.machine))) {
    console.log('no /proc/stat on this machine: CPU per claim is not measured');
    return false;
  }
  const cores = cpus().length;
  const measured = [];
  for (const layout of layouts) {
    printTable(`${layout.n} API process${layout.n === 1 ? '' : 'es'}, ${dispatchersOf(layout)} dispatchers dealt over them: each turn ${CLAIMS.toLocaleString()} claims after ${WARMUP.toLocaleString()} untimed`, [
      ...layout.turns.map((run, round) => ({ round: round + 1, ...figures(measure([run])) })),
      { round: 'all', ...figures(measure(layout.turns)) },
    ]);
    const tally = tallyClaims(layout.ids, layout.claimed);
    measured.push({ layout, all: measure(layout.turns), tally, stored: await dispatchedRows(layout) });
  }
  const base = measured[0]!.all;
  printTable("Claims by API processes (CPU per claim: the whole machine's busy time over the timed turns, dispatchers, Redis, PostgreSQL, the kernel and anyone else's processes included, per claim; the bench's processes' part is the API processes', the dispatchers', Redis's and PostgreSQL's alone)", measured.map(({ layout, all, tally, stored }) => ({
    'API processes': layout.n,
    'claims/s': Math.round(all.rate),
    'machine busy': `${Math.round(100 * all.busy)}%`,
    'CPU per claim': us(all.cpuUs),
    [`vs N = ${layouts[0]!.n}`]: `${(all.cpuUs / base.cpuUs).toFixed(2)}x`,
    "the bench's processes' part": us(all.ownUs),
    [`its vs N = ${layouts[0]!.n}`]: `${(all.ownUs / base.ownUs).toFixed(2)}x`,
    'the served side (all but the dispatchers)': `${us(servedUs(all))}, ${(servedUs(all) / servedUs(base)).toFixed(2)}x`,
    enqueued: layout.ids.length,
    'double claims': tally.doubles,
    'lost jobs': tally.lost,
    'unknown ids': tally.strangers,
    'HTTP errors': layout.errors,
    'PostgreSQL dispatched rows': `${stored}/${layout.ids.length}`,
  })));
  const crowded = measured.filter(({ all }) => all.busy >= CROWDED_BUSY && all.ownUs / all.cpuUs < CROWDED_OWN_SHARE);
  if (crowded.length > 0) {
    console.log(`Others crowded the machine: over the turns of ${crowded.map(({ layout }) => `N = ${layout.n}`).join(', ')} it was ${crowded.map(({ all }) => `${Math.round(100 * all.busy)}%`).join(', ')} busy, ` +
      `the bench's processes ${crowded.map(({ all }) => `${Math.round((100 * all.ownUs) / all.cpuUs)}%`).join(', ')} of that; there the whole machine's CPU per claim is the share of it the bench got, not what a claim costs.`);
  }
  const programs = Object.keys(base.byProgramUs).sort();
  printTable("The bench's processes' CPU per claim by program (this process: the dispatchers' thread; node: the API processes and the auth service)", measured.map(({ layout, all }) => ({
    'API processes': layout.n,
    ...Object.fromEntries(programs.map((program) => [program, `${us(all.byProgramUs[program] ?? 0)} (${((all.byProgramUs[program] ?? 0) / base.byProgramUs[program]!).toFixed(2)}x)`])),
  })));
  printTable('Batching: Redis commands and claim script calls over the turns (warmups included), PostgreSQL commits over the whole run, event-loop waits of the API processes over the timed turns', measured.map(({ layout }) => ({
    'API processes': layout.n,
    'claims per API event-loop wait': (layout.turns.reduce((sum, run) => sum + run.claimed.length, 0) / layout.turns.reduce((sum, run) => sum + (run.machine!.waitsByProgram.node ?? 0), 0)).toFixed(1),
    'Redis commands per claim': (layout.redis.commands / layout.redis.claims).toFixed(3),
    'claims per claim script call': (layout.redis.claims / layout.redis.scripts).toFixed(1),
    'PostgreSQL commits per 100 claims': ((100 * layout.commits) / layout.ids.length).toFixed(2),
  })));
  const spare = (n: number) => cores >= n + 1 + CORES_BESIDE_APIS;
  console.log(`${cores} cores; N API processes have a spare core when cores >= N + ${CORES_BESIDE_APIS} (the dispatchers' thread, Redis, PostgreSQL) + 1: ` +
    `${layouts.filter(({ n }) => spare(n)).map(({ n }) => `N = ${n}`).join(', ') || 'none here'}.`);
  const checks = measured.slice(1).flatMap(({ layout, all }) => (['cpuUs', 'ownUs'] as const).map((figure) => {
    const ratio = all[figure] / base[figure];
    const whose = figure === 'cpuUs' ? 'the whole machine' : "the bench's processes";
    return { target: `CPU per claim (${whose}), ${layout.n} API processes <= ${TARGET_CPU_RATIO}x ${layouts[0]!.n}'s`, measured: `${us(all[figure])} vs ${us(base[figure])}: ${ratio.toFixed(2)}x`, result: verdict(ratio <= TARGET_CPU_RATIO) };
  }));
  for (const [i, { layout, all }] of measured.entries()) {
    if (i === 0) continue;
    const before = measured[i - 1]!;
    const judged = spare(layout.n);
    checks.push({
      target: `claims/s grows from ${before.layout.n} to ${layout.n} API processes (judged with a spare core)`,
      measured: `${Math.round(before.all.rate)}/s to ${Math.round(all.rate)}/s`,
      result: judged ? verdict(all.rate > before.all.rate) : 'not judged: no spare core',
    });
  }
  for (const { layout, tally, stored } of measured) {
    const ok = layout.claimed.length === layout.ids.length && tally.doubles === 0 && tally.lost === 0 && tally.strangers === 0 && layout.errors === 0 && stored === layout.ids.length;
    checks.push({
      target: `${layout.n} API processes: every job claimed once, 0 double claims, 0 lost (answers, store)`,
      measured: `${layout.claimed.length}/${layout.ids.length} claimed, ${tally.doubles} double, ${tally.lost} lost, ${stored} rows`,
      result: verdict(ok),
    });
  }
  printTable('Targets', checks);
  console.log(machineLine());
  return checks.every((check) => check.result !== 'FAIL');
}

const figures = (m: ReturnType<typeof measure>) => ({
  claims: m.claims,
  'claims/s': Math.round(m.rate),
  'machine busy': `${Math.round(100 * m.busy)}%`,
  'CPU per claim': us(m.cpuUs),
  "the bench's processes' part": us(m.ownUs),
});

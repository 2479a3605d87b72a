import { Queue } from 'bullmq';
import type { ChainableCommander, Redis } from 'ioredis';
import { toError } from '../errors.js';
import { DAY } from '../time.js';
import { closeWithin, quitConnection, reportOutages, settlesWithin, type RedisLog } from '../redis/redis-connections.js';
import { loadLuaScript } from './load-lua-script.js';
import { RUN_QUEUE, runQueueKeys, type RunQueueKeys } from './queue-keys.js';
import type { CancelResult, CancelScope, ClaimResult, JobState, MovedJob, QueuedRun, ReportOutcome, RunState, SweepResult } from './run-queue-types.js';

export * from './run-queue-types.js';

export interface RunQueueOptions {
  redis: Redis;
  prefix: string;
  /** Finished BullMQ jobs kept per set for inspection (default 1000); SQLite keeps all. */
  keepFinished?: number;
  /** How long a finished run's Redis state and live backlog stay (default 1 day, ms). */
  finishedTtlMs?: number;
  /** Cap of a run's live backlog stream, in entries (default 10,000). */
  liveCap?: number;
  /** Cap of a run's live backlog, in bytes of event text (default LIVE_BACKLOG_MAX_BYTES); the oldest events go first. */
  liveCapBytes?: number;
  /**
   * Most wait-list entries one claim call may pass over (hold, or drop as stale) before it
   * answers, for all the claims it carries (default 256).
   */
  maxHoldsPerClaim?: number;
  /**
   * Wait-list entries a cancel looks at from each end for a queued job it cancels (default
   * 1000). One found there leaves the list at once; one further in is left for the claims
   * to drop, since taking it out walks the list.
   */
  cancelReach?: number;
  /** Where BullMQ's connection reports an outage (default: nowhere). */
  log?: RedisLog;
}

/** Default byte cap of one run's live backlog (16 MiB of event text). */
export const LIVE_BACKLOG_MAX_BYTES = 16 * 1024 * 1024;

type ScriptName = 'addJobs' | 'claimNextJob' | 'reportJobStatus' | 'cancelJobs' | 'setHarnessCap' | 'appendLive' | 'sweepStaleJobs';
const SCRIPTS: Record<ScriptName, string> = {
  addJobs: 'add-jobs.lua',
  appendLive: 'append-live.lua',
  claimNextJob: 'claim-next-job.lua',
  reportJobStatus: 'report-job-status.lua',
  cancelJobs: 'cancel-jobs.lua',
  setHarnessCap: 'set-harness-cap.lua',
  sweepStaleJobs: 'sweep-stale-jobs.lua',
};
const CONTEXT_KEYS = 7;
/** Jobs queued per script call: large enough to batch, small enough to keep one call short. */
const ADD_CHUNK = 500;
/** Active-list entries one stale-job sweep call looks at. */
const SWEEP_WINDOW = 500;
/** Most claims one script call carries; more waiting in the same turn go in the next call. */
const CLAIMS_PER_CALL = 64;
/** Keys a script takes after the shared context's. */
const EXTRA_KEYS: Partial<Record<ScriptName, number>> = { setHarnessCap: 1, claimNextJob: 1, cancelJobs: 1 };

type ScriptCaller = (keysAndArgs: Array<string | number>) => Promise<unknown>;

/**
 * The run job queue: a BullMQ `Queue` (jobs are BullMQ jobs, inspectable with BullMQ's API)
 * plus the atomic scripts that claim, hold, report and cancel over its structures.
 */
export class RunQueue {
  readonly keys: RunQueueKeys;
  readonly bull: Queue;
  private readonly redis: Redis;
  /** BullMQ's own connection; see the constructor. */
  private readonly bullConnection: Redis;
  private readonly scripts: Record<ScriptName, ScriptCaller>;
  private readonly keepFinished: number;
  private readonly finishedTtlSeconds: number;
  private readonly liveCap: number;
  private readonly liveCapBytes: number;
  private readonly maxHoldsPerClaim: number;
  private readonly cancelReach: number;
  private readonly contextKeys: string[];
  private writesHeld = false;
  /** Claims asked for in this turn of the event loop, sent together at its end. */
  private claimsWaiting: Array<{ tokenHash: string; answer: (result: ClaimResult) => void; fail: (error: Error) => void }> = [];

  constructor(options: RunQueueOptions) {
    this.redis = options.redis;
    this.keys = runQueueKeys(options.prefix);
    this.keepFinished = options.keepFinished ?? 1000;
    this.finishedTtlSeconds = Math.ceil((options.finishedTtlMs ?? DAY) / 1000);
    this.liveCap = options.liveCap ?? 10_000;
    this.liveCapBytes = options.liveCapBytes ?? LIVE_BACKLOG_MAX_BYTES;
    this.maxHoldsPerClaim = options.maxHoldsPerClaim ?? 256;
    this.cancelReach = options.cancelReach ?? 1000;
    // BullMQ defines some forty scripts on the connection it is given, and ioredis copies every
    // script of a connection into each auto-pipeline batch it builds. On its own connection
    // they stay off the one that carries every claim, report and console event.
    this.bullConnection = options.redis.duplicate();
    this.bull = new Queue(RUN_QUEUE, { connection: this.bullConnection, prefix: options.prefix });
    reportOutages(this.bull, 'run-queue', options.log ?? { warn() {}, info() {} });
    const k = this.keys;
    this.contextKeys = [k.wait, k.active, k.completed, k.failed, k.caps, k.pendingGroups, k.orphans];
    const scripts = {} as Record<ScriptName, ScriptCaller>;
    for (const [name, file] of Object.entries(SCRIPTS) as Array<[ScriptName, string]>) {
      if (!(name in this.redis)) this.redis.defineCommand(name, { numberOfKeys: CONTEXT_KEYS + (EXTRA_KEYS[name] ?? 0), lua: loadLuaScript(file) });
      const command = (this.redis as unknown as Record<ScriptName, (...args: Array<string | number>) => Promise<unknown>>)[name];
      scripts[name] = (keysAndArgs) => command.apply(this.redis, keysAndArgs);
    }
    this.scripts = scripts;
  }

  /**
   * Holds the connection's writes until the event loop has handled every socket that was
   * ready, then sends them together: the claims of concurrent dispatchers, each arriving on
   * its own socket, reach Redis in one write, as auto-pipelining would, without building an
   * ioredis Pipeline per batch. (Releasing on the next tick instead batches nothing across
   * sockets: 10,000 claims by 32 dispatchers made 49,700 write calls that way, 50,400 with
   * no holding, 36,800 held to the end of the loop's turn; strace, whole process.)
   */
  private batchWrites(): void {
    const { stream } = this.redis;
    if (this.writesHeld || this.redis.status !== 'ready' || !stream) return;
    this.writesHeld = true;
    stream.cork();
    const release = () => {
      this.writesHeld = false;
      stream.uncork();
    };
    setImmediate(release);
  }

  private call(name: ScriptName, args: Array<string | number>, keys: string[] = []): Promise<unknown> {
    this.batchWrites();
    return this.run(name, args, keys);
  }

  private async run(name: ScriptName, args: Array<string | number>, keys: string[] = []): Promise<unknown> {
    const k = this.keys;
    const context = [k.bullJobPrefix, k.runPrefix, k.inflightPrefix, k.pendingPrefix, Date.now(), this.keepFinished, this.finishedTtlSeconds, this.liveCap];
    try {
      return await this.scripts[name]([...this.contextKeys, ...keys, ...context, ...args]);
    } catch (error) {
      throw toError(error, `run queue script ${name}`);
    }
  }

  /**
   * Queues jobs: each BullMQ job, its run state and its place in one script per chunk.
   * Answers the jobs held (`pending`) as they were queued: their harness was at its cap, or
   * their game jam in play. Idempotent by job id (see add-jobs.lua): a job Redis already
   * holds is left as it is, so an add whose outcome is unknown may be sent again, and a job
   * Redis lost (reconcile) is queued again through the same call.
   */
  async add(runs: QueuedRun[]): Promise<MovedJob[]> {
    const held: MovedJob[] = [];
    for (let i = 0; i < runs.length; i += ADD_CHUNK) {
      const args = runs.slice(i, i + ADD_CHUNK).flatMap((run) => [
        run.id, run.seq, run.harness, run.jam, run.subjectJson, run.origin ?? '', run.maxRuntimeSeconds ?? '', JSON.stringify(run.request),
      ]);
      held.push(...moved((await this.call('addJobs', args)) as string[]));
    }
    return held;
  }


  /**
   * Forgets the revisions of applied caps when Redis holds one newer than any SQLite has
   * (the store was replaced under a Redis that outlived it), so the store's writes apply again.
   */
  async resetCapRevisionsAbove(newestStored: number): Promise<void> {
    const applied = Object.values(await this.redis.hgetall(this.keys.capRevisions)).map(Number);
    if (applied.some((revision) => revision > newestStored)) await this.redis.del(this.keys.capRevisions);
  }

  /** Harness caps as Redis enforces them. */
  async caps(): Promise<Map<string, number>> {
    const raw = await this.redis.hgetall(this.keys.caps);
    return new Map(Object.entries(raw).map(([slug, cap]) => [slug, Number(cap)]));
  }

  /**
   * Claims the oldest claimable job for a token's hash. Claims asked for in one turn of the
   * event loop (the dispatchers whose requests arrived together) go to Redis in one script
   * call at the turn's end, so Redis and this thread pay a call's fixed cost once for all of
   * them; a lone claim waits for nothing but the end of the turn it came in on.
   */
  claim(tokenHash: string): Promise<ClaimResult> {
    return new Promise((answer, fail) => {
      if (this.claimsWaiting.push({ tokenHash, answer, fail }) === 1) setImmediate(() => this.sendClaims());
    });
  }

  private sendClaims(): void {
    const batch = this.claimsWaiting.splice(0, CLAIMS_PER_CALL);
    if (this.claimsWaiting.length > 0) setImmediate(() => this.sendClaims());
    // Not held like other writes: this runs at the turn's end already, and a hold now would
    // wait for the next turn.
    const args = [this.maxHoldsPerClaim, this.keys.consoleChannel, ...batch.map((claim) => claim.tokenHash)];
    this.run('claimNextJob', args, [this.keys.leftBehind]).then((reply) => {
      const [count, ...fields] = reply as string[];
      const claimedCount = Number(count);
      const held = moved(fields.slice(4 * claimedCount));
      batch.forEach((claim, i) => {
        const at = 4 * i;
        claim.answer({
          claimed: i < claimedCount ? { id: fields[at]!, requestJson: fields[at + 1]!, origin: fields[at + 2] || null, seq: Number(fields[at + 3]) } : null,
          // The holds the call made on its way, told once.
          held: i === 0 ? held : [],
        });
      });
    }, (error: Error) => {
      for (const claim of batch) claim.fail(error);
    });
  }

  async report(
    id: string,
    state: 'starting' | 'running' | 'succeeded' | 'failed' | 'canceled',
    options: { detail?: string | null; recordId?: string | null } = {},
  ): Promise<{ outcome: ReportOutcome; previous: JobState | ''; subjectJson: string; released: MovedJob[] }> {
    const returnValue = JSON.stringify({ recordId: options.recordId ?? null });
    const [outcome, previous, subject, ...released] = (await this.call('reportJobStatus', [
      id, state, options.detail ?? '', options.recordId ?? '', returnValue,
    ])) as string[];
    return { outcome: outcome as ReportOutcome, previous: previous as JobState | '', subjectJson: subject!, released: moved(released) };
  }

  async cancel(scope: CancelScope, detail: string, source: { ids: string[] } | { popWait: number }): Promise<CancelResult> {
    const args: Array<string | number> = 'ids' in source
      ? [scope, detail, this.cancelReach, 'ids', 0, ...source.ids]
      : [scope, detail, this.cancelReach, 'wait', source.popWait];
    const [canceled, released, skipped] = (await this.call('cancelJobs', args, [this.keys.leftBehind])) as [string[], string[], string[]];
    const canceledJobs: CancelResult['canceled'] = [];
    for (let i = 0; i + 2 < canceled.length; i += 3) {
      canceledJobs.push({ id: canceled[i]!, previous: canceled[i + 1] as JobState, subjectJson: canceled[i + 2]! });
    }
    return {
      canceled: canceledJobs,
      released: moved(released),
      skipped: pairs(skipped).map(([id, state]) => ({ id, state: state as JobState | 'missing' })),
    };
  }

  /**
   * Fails every dispatched job with no driver report for `leaseMs` (0: never) and every
   * starting or running job past its maxRuntimeSeconds plus `graceMs`, among the `window`
   * (default 500) oldest claims after the `skip` oldest: one script call, its time bounded
   * by the window. `kept` is the `skip` of the next window; a window that looked at fewer
   * entries than asked was the last.
   */
  async sweepStale(options: { leaseMs: number; graceMs: number; leaseDetail: string; runtimeDetail: string; window?: number }, skip = 0): Promise<SweepResult> {
    const window = options.window ?? SWEEP_WINDOW;
    const [failed, released, looked, kept] = (await this.call('sweepStaleJobs', [
      options.leaseMs, options.graceMs, options.leaseDetail, options.runtimeDetail, window, skip,
    ])) as [string[], string[], number, number];
    const jobs: SweepResult['failed'] = [];
    for (let i = 0; i + 3 < failed.length; i += 4) {
      jobs.push({ id: failed[i]!, previous: failed[i + 1] as JobState, subjectJson: failed[i + 2]!, detail: failed[i + 3]! });
    }
    return { failed: jobs, released: moved(released), last: looked < window, kept };
  }

  /**
   * Applies a cap stored under `revision` (null: whatever Redis holds); a write older than
   * the last one applied for the harness changes nothing. Answers the held jobs it released.
   */
  async setCap(harness: string, maxParallelism: number | null, revision: number | null): Promise<MovedJob[]> {
    return moved((await this.call('setHarnessCap', [harness, maxParallelism ?? '', revision ?? ''], [this.keys.capRevisions])) as string[]);
  }

  /** Run state as Redis holds it, for reconcile: null when Redis has no state for the job. */
  async states(ids: string[]): Promise<Array<RunState | null>> {
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.run(id), 'state', 'recordId', 'detail', 'token', 'dispatchedAt');
    return (await execReplies(pipeline, 'run queue states')).map((value) => {
      const [state, recordId, detail, token, dispatchedAt] = value as Array<string | null>;
      if (!state) return null;
      return { state: state as JobState, recordId: recordId ?? '', detail: detail ?? '', tokenHash: token || null, dispatchedAtMs: dispatchedAt ? Number(dispatchedAt) : null };
    });
  }

  /** True while the connection is up: a command sent now reaches Redis (without it, one fails at once, unsent). */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /**
   * Waits at most `waitMs` for the connection to be ready (at once when it is), as after a
   * command it carried was cut: true once it is.
   */
  async untilReady(waitMs: number): Promise<boolean> {
    if (this.connected) return true;
    let ready: (() => void) | undefined;
    try {
      return await settlesWithin(() => new Promise<void>((resolve) => this.redis.once('ready', (ready = resolve))), waitMs);
    } finally {
      if (ready) this.redis.off('ready', ready);
    }
  }

  /** The claimed token's hash as Redis holds it; null when the job is not claimed (or Redis forgot it). */
  async tokenHash(id: string): Promise<string | null> {
    return (await this.redis.hget(this.keys.run(id), 'token')) || null;
  }

  /** Entries in the wait list, those a cancel left behind (see `cancelReach`) included. */
  async waitListLength(): Promise<number> {
    return this.redis.llen(this.keys.wait);
  }

  /** Queued jobs in the wait list: its entries but those a cancel left behind. */
  async waitingCount(): Promise<number> {
    return queuedInWait(this.redis, this.keys);
  }

  /**
   * Claimed jobs still in flight, oldest claim first. Claims push at the head of BullMQ's
   * active list and the scripts that end a job look for it from the tail, so ending them in
   * this order finds each at once: newest first, every one scanned the whole list (reaping
   * 20,000 spent 3 s in Redis, quadratic in the list).
   */
  async activeIds(): Promise<string[]> {
    return (await this.redis.lrange(this.keys.active, 0, -1)).reverse();
  }

  /**
   * The jobs held in every hold group, in pages of at most `size` ids, group by group, oldest
   * first within each: those held when the group is reached, and not those held after, so a
   * caller that cancels each page while jobs keep coming ends. Read page by page, since a cap
   * can hold any number of jobs (one read of 150,000 ids threw when spread into a push).
   */
  async *heldPages(size: number): AsyncGenerator<string[]> {
    for (const group of await this.redis.smembers(this.keys.pendingGroups)) {
      const key = this.keys.pendingPrefix + group;
      const newest = await this.redis.zrange(key, -1, -1, 'WITHSCORES');
      if (newest.length === 0) continue;
      // Scores are enqueue sequences, one per job: each page starts past the last one's.
      for (let after = '-inf'; ;) {
        const page = await this.redis.zrangebyscore(key, after, newest[1]!, 'WITHSCORES', 'LIMIT', 0, size);
        if (page.length === 0) break;
        yield page.filter((_, i) => i % 2 === 0);
        if (page.length < 2 * size) break;
        after = `(${page.at(-1)}`;
      }
    }
  }

  /** Takes every orphan the claim script set aside, atomically: one pushed meanwhile waits for the next take. */
  async takeOrphans(): Promise<string[]> {
    const [orphans] = await execReplies(this.redis.multi().lrange(this.keys.orphans, 0, -1).del(this.keys.orphans), 'run queue take orphans');
    return orphans as string[];
  }

  /** Appends driver-relayed event lines to a run's live backlog (capped). */
  /** Appends relayed event lines to the run's live backlog, dropping its oldest events past the entry and byte caps. */
  async appendLive(id: string, lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    await this.call('appendLive', [id, this.liveCapBytes, ...lines]);
  }

  /** Every event line relayed so far (the record store keeps them with the record). */
  async liveEvents(id: string): Promise<string[]> {
    const entries = await this.redis.xrange(this.keys.live(id), '-', '+');
    const lines: string[] = [];
    for (const [, fields] of entries) if (fields[0] === 'e') lines.push(fields[1]!);
    return lines;
  }

  async close(): Promise<void> {
    // A queue closed while its connection is still starting up leaves BullMQ's start-up
    // commands to reject with nobody listening; let it come up first (bounded like the close).
    await closeWithin(async () => {
      await this.bull.waitUntilReady().catch(() => undefined);
      await this.bull.close();
    }, () => this.bull.disconnect());
    await quitConnection(this.bullConnection);
  }
}

/** Queued jobs in the wait list: its length less the entries a cancel left behind, read together. */
export async function queuedInWait(redis: Redis, keys: Pick<RunQueueKeys, 'wait' | 'leftBehind'>): Promise<number> {
  const [length, leftBehind] = await execReplies(redis.multi().llen(keys.wait).scard(keys.leftBehind), 'run queue waiting count');
  // An id left behind whose entry Redis lost (a restart from an older snapshot) is subtracted
  // until the list next runs empty, when the set is emptied.
  return Math.max(0, (length as number) - (leftBehind as number));
}

/** Runs a MULTI or pipeline; answers each command's reply, or throws the first failure. */
async function execReplies(commands: ChainableCommander, what: string): Promise<unknown[]> {
  const results = await commands.exec();
  const failure = results?.find(([error]) => error);
  if (!results || failure) throw toError(failure?.[0] ?? 'transaction aborted', what);
  return results.map(([, reply]) => reply);
}

function moved(flat: string[]): MovedJob[] {
  return pairs(flat).map(([id, subjectJson]) => ({ id, subjectJson }));
}

function pairs(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

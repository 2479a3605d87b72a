import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { queueUnavailable, toError } from '../errors.js';
import { closeWithin, quitConnection, reportOutages, type RedisLog } from '../redis/redis-connections.js';
import { COMMAND_TIMEOUT_MS } from '../redis/redis-connections.js';
import { DAY } from '../time.js';
import { RUN_QUEUE, runQueueKeys } from './queue-keys.js';
import { RunQueueReads } from './run-queue-reads.js';
import { defineRunQueueScripts, moved, pairs, type RunQueueScript, type ScriptCaller } from './run-queue-scripts.js';
import type { CancelResult, CancelScope, ClaimResult, JobState, MovedJob, QueuedRun, ReportOutcome, SweepResult } from './run-queue-types.js';

export { queuedInWait } from './run-queue-reads.js';
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
  /**
   * How long a claim may take from its call to its answer (default 5 s, ms): past it the
   * claim fails as `queue_unavailable`, whether it waited behind another call or its own call
   * got no answer, and its script, should it reach Redis later, claims nothing.
   */
  claimDeadlineMs?: number;
  /** Where BullMQ's connection and late claim answers are reported (default: nowhere). */
  log?: RedisLog;
}

/** Default of `claimDeadlineMs`: the command timeout the serving connections have (ms). */
export const CLAIM_DEADLINE_MS = COMMAND_TIMEOUT_MS;
/**
 * A round trip at most this long gives a reading of Redis's clock (ms): the reading is off
 * by at most half of it.
 */
const CLOCK_READING_MAX_RTT_MS = 20;

/** What one claim script call answered: the claims made, in order, and the holds; 'late' when its deadline had passed. */
export type ClaimCallResult = 'late' | { claimed: Array<NonNullable<ClaimResult['claimed']>>; held: MovedJob[] };

interface WaitingClaim {
  tokenHash: string;
  /** Local clock (ms): the claim answers or fails by then. */
  deadline: number;
  timer: NodeJS.Timeout;
  /** Whether it was answered or failed (a late script answer then changes nothing). */
  settled: boolean;
  answer: (result: ClaimResult) => void;
  fail: (error: Error) => void;
}

/** Default byte cap of one run's live backlog (16 MiB of event text). */
export const LIVE_BACKLOG_MAX_BYTES = 16 * 1024 * 1024;

/** Jobs queued per script call: large enough to batch, small enough to keep one call short. */
const ADD_CHUNK = 500;
/** Active-list entries one stale-job sweep call looks at. */
const SWEEP_WINDOW = 500;
/** Most claims one script call carries; more waiting in the same turn go in the next call. */
const CLAIMS_PER_CALL = 64;

/**
 * The run job queue: a BullMQ `Queue` (jobs are BullMQ jobs, inspectable with BullMQ's API)
 * plus the atomic scripts that claim, hold, report and cancel over its structures.
 */
export class RunQueue extends RunQueueReads {
  readonly bull: Queue;
  /** BullMQ's own connection; see the constructor. */
  private readonly bullConnection: Redis;
  private readonly scripts: Record<RunQueueScript, ScriptCaller>;
  private readonly keepFinished: number;
  private readonly finishedTtlSeconds: number;
  private readonly liveCap: number;
  private readonly liveCapBytes: number;
  private readonly maxHoldsPerClaim: number;
  private readonly cancelReach: number;
  private readonly contextKeys: string[];
  private readonly claimDeadlineMs: number;
  private readonly log: RedisLog;
  private writesHeld = false;
  /** Claims asked for in this turn of the event loop, sent together at its end. */
  private claimsWaiting: WaitingClaim[] = [];
  /** The claims of the script call that is out, its answer not yet back; null when none is. */
  private claimCallOut: WaitingClaim[] | null = null;
  /** Redis's clock minus this process's (ms), read from claim answers that came back fast. */
  private redisClockOffset = 0;

  constructor(options: RunQueueOptions) {
    super(options.redis, runQueueKeys(options.prefix));
    this.keepFinished = options.keepFinished ?? 1000;
    this.finishedTtlSeconds = Math.ceil((options.finishedTtlMs ?? DAY) / 1000);
    this.liveCap = options.liveCap ?? 10_000;
    this.liveCapBytes = options.liveCapBytes ?? LIVE_BACKLOG_MAX_BYTES;
    this.maxHoldsPerClaim = options.maxHoldsPerClaim ?? 256;
    this.cancelReach = options.cancelReach ?? 1000;
    this.claimDeadlineMs = options.claimDeadlineMs ?? CLAIM_DEADLINE_MS;
    this.log = options.log ?? { warn() {}, info() {} };
    // BullMQ defines some forty scripts on the connection it is given, and ioredis copies every
    // script of a connection into each auto-pipeline batch it builds. On its own connection
    // they stay off the one that carries every claim, report and console event.
    this.bullConnection = options.redis.duplicate();
    this.bull = new Queue(RUN_QUEUE, { connection: this.bullConnection, prefix: options.prefix });
    reportOutages(this.bull, 'run-queue', this.log);
    const k = this.keys;
    this.contextKeys = [k.wait, k.active, k.completed, k.failed, k.caps, k.pendingGroups, k.orphans, k.uncopied];
    this.scripts = defineRunQueueScripts(this.redis);
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

  private call(name: RunQueueScript, args: Array<string | number>, keys: string[] = []): Promise<unknown> {
    this.batchWrites();
    return this.run(name, args, keys);
  }

  private async run(name: RunQueueScript, args: Array<string | number>, keys: string[] = []): Promise<unknown> {
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

  /**
   * Claims the oldest claimable job for a token's hash. Claims asked for in one turn of the
   * event loop (the dispatchers whose requests arrived together) go to Redis in one script
   * call at the turn's end, so Redis and this thread pay a call's fixed cost once for all of
   * them; a lone claim waits for nothing but the end of the turn it came in on. While a call
   * is out, the claims that arrive wait for its answer and go together in the next call, so
   * a process with few dispatchers of its own still sends few, full calls.
   */
  claim(tokenHash: string): Promise<ClaimResult> {
    return new Promise((answer, fail) => {
      const claim: WaitingClaim = {
        tokenHash, answer, fail, settled: false, deadline: Date.now() + this.claimDeadlineMs,
        timer: setTimeout(() => this.expireClaim(claim), this.claimDeadlineMs),
      };
      if (this.claimsWaiting.push(claim) === 1 && !this.claimCallOut) setImmediate(() => this.sendClaims());
    });
  }

  /**
   * Claims for each hash in one script call that Redis runs only until `redisDeadline` (ms by
   * Redis's clock); unbatched, for callers that keep their own deadline.
   */
  async claimBefore(tokenHashes: string[], redisDeadline: number): Promise<ClaimCallResult> {
    const sentAt = Date.now();
    const args = [this.maxHoldsPerClaim, this.keys.consoleChannel, redisDeadline, ...tokenHashes];
    const [count, redisNow, ...fields] = (await this.run('claimNextJob', args, [this.keys.leftBehind])) as Array<string | number>;
    const answeredAt = Date.now();
    if (answeredAt - sentAt <= CLOCK_READING_MAX_RTT_MS) this.redisClockOffset = Number(redisNow) - (sentAt + answeredAt) / 2;
    const claimedCount = Number(count);
    if (claimedCount < 0) return 'late';
    const text = fields as string[];
    const claimed: Array<NonNullable<ClaimResult['claimed']>> = [];
    for (let at = 0; at < 4 * claimedCount; at += 4) {
      claimed.push({ id: text[at]!, requestJson: text[at + 1]!, origin: text[at + 2] || null, seq: Number(text[at + 3]) });
    }
    return { claimed, held: moved(text.slice(4 * claimedCount)) };
  }

  /** A claim's deadline passed before its answer came: it fails; a call it was the last live claim of stops holding up the next. */
  private expireClaim(claim: WaitingClaim): void {
    if (claim.settled) return;
    claim.settled = true;
    const waiting = this.claimsWaiting.indexOf(claim);
    if (waiting >= 0) this.claimsWaiting.splice(waiting, 1);
    claim.fail(queueUnavailable(new Error(`Redis did not answer a claim within ${this.claimDeadlineMs} ms`)));
    if (this.claimCallOut?.every((out) => out.settled)) {
      // Abandoned: its script, if it still reaches Redis, finds its deadline passed.
      this.claimCallOut = null;
      if (this.claimsWaiting.length > 0) setImmediate(() => this.sendClaims());
    }
  }

  private sendClaims(): void {
    if (this.claimCallOut || this.claimsWaiting.length === 0) return;
    const batch = this.claimsWaiting.splice(0, CLAIMS_PER_CALL);
    // One call out at a time: claims that arrive while it is out go together in the next,
    // sent as it returns, instead of each turn sending a call of its own.
    this.claimCallOut = batch;
    // The script must run early enough for its answer to get back before the first claim's
    // deadline: a tenth of the time is kept for the way back.
    const deadline = Math.min(...batch.map((claim) => claim.deadline)) - this.claimDeadlineMs / 10;
    // Not held like other writes: this runs at the turn's end already, and a hold now would
    // wait for the next turn.
    this.claimBefore(batch.map((claim) => claim.tokenHash), Math.floor(deadline + this.redisClockOffset)).then((result) => {
      if (result !== 'late') {
        // Answered after some of its claims had failed: the jobs they took wait for the dispatch lease.
        const lost = result.claimed.filter((_, i) => batch[i]!.settled).map((job) => job.id);
        if (lost.length > 0) this.log.warn({ jobs: lost }, 'claims answered after their deadline; the dispatch lease fails them');
      }
      // The holds the call made on its way, told once, to the first claim still waiting.
      let held = result === 'late' ? [] : result.held;
      batch.forEach((claim, i) => {
        if (claim.settled) return;
        claim.settled = true;
        clearTimeout(claim.timer);
        if (result === 'late') return claim.fail(queueUnavailable(new Error('the claim reached Redis after its deadline')));
        claim.answer({ claimed: result.claimed[i] ?? null, held });
        held = [];
      });
    }, (error: Error) => {
      for (const claim of batch) {
        if (claim.settled) continue;
        claim.settled = true;
        clearTimeout(claim.timer);
        claim.fail(error);
      }
    }).finally(() => {
      if (this.claimCallOut !== batch) return;
      this.claimCallOut = null;
      if (this.claimsWaiting.length > 0) setImmediate(() => this.sendClaims());
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

  /**
   * The store's rows hold these jobs' outcomes: their finished states leave the not-yet-copied
   * set and expire (see closeRun in run-queue-context.lua). Answers how many were listed.
   */
  async confirmCopied(ids: string[]): Promise<number> {
    let confirmed = 0;
    for (let i = 0; i < ids.length; i += ADD_CHUNK) confirmed += (await this.call('confirmCopied', ids.slice(i, i + ADD_CHUNK))) as number;
    return confirmed;
  }

  /** Appends relayed event lines to the run's live backlog, dropping its oldest events past the entry and byte caps. */
  async appendLive(id: string, lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    await this.call('appendLive', [id, this.liveCapBytes, ...lines]);
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


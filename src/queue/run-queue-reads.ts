import type { ChainableCommander, Redis } from 'ioredis';
import { toError } from '../errors.js';
import { settlesWithin } from '../redis/redis-connections.js';
import type { RunQueueKeys } from './queue-keys.js';
import type { JobState, RunState } from './run-queue-types.js';

/**
 * What the run queue's structures in Redis hold, read without changing them: run states,
 * counts, the in-flight and held jobs, live backlogs, and the connection's readiness.
 * RunQueue adds the scripts that change them.
 */
export class RunQueueReads {
  constructor(
    protected readonly redis: Redis,
    readonly keys: RunQueueKeys,
  ) {}

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

  /**
   * Up to `limit` finished jobs whose outcome the store may not hold yet, oldest first, each
   * with when it finished (ms since the epoch), among those that finished more than
   * `olderThanMs` ago: a younger one's copy is likely still on its way from the process that
   * decided it.
   */
  async uncopied(olderThanMs: number, limit: number): Promise<Array<[id: string, finishedAtMs: number]>> {
    const flat = await this.redis.zrangebyscore(this.keys.uncopied, '-inf', Date.now() - olderThanMs, 'WITHSCORES', 'LIMIT', 0, limit);
    const listed: Array<[string, number]> = [];
    for (let i = 0; i < flat.length; i += 2) listed.push([flat[i]!, Number(flat[i + 1])]);
    return listed;
  }

  /** Takes every orphan the claim script set aside, atomically: one pushed meanwhile waits for the next take. */
  async takeOrphans(): Promise<string[]> {
    const [orphans] = await execReplies(this.redis.multi().lrange(this.keys.orphans, 0, -1).del(this.keys.orphans), 'run queue take orphans');
    return orphans as string[];
  }

  /** Every event line relayed so far (the record store keeps them with the record). */
  async liveEvents(id: string): Promise<string[]> {
    const entries = await this.redis.xrange(this.keys.live(id), '-', '+');
    const lines: string[] = [];
    for (const [, fields] of entries) if (fields[0] === 'e') lines.push(fields[1]!);
    return lines;
  }

  /** Harness caps as Redis enforces them. */
  async caps(): Promise<Map<string, number>> {
    const raw = await this.redis.hgetall(this.keys.caps);
    return new Map(Object.entries(raw).map(([slug, cap]) => [slug, Number(cap)]));
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

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, inject, vi } from 'vitest';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';
import { openDeploymentQueues } from '../../src/queue/deployment-queues.js';
import { RUN_QUEUE } from '../../src/queue/queue-keys.js';
import { RunQueue, type QueuedRun } from '../../src/queue/run-queue.js';

const redis = new Redis(redisOptionsFromUrl(inject('redisUrl')));
let queue: RunQueue;
let seq = 0;
beforeEach(() => {
  queue = new RunQueue({ redis, prefix: `tq${randomUUID().slice(0, 8)}` });
});
// Each queue holds its own BullMQ connection: close every one, not just the last.
afterEach(() => queue.close());
afterAll(() => redis.disconnect());

const run = (harness = 'claude', jam = ''): QueuedRun => {
  const id = randomUUID();
  return { id, seq: ++seq, harness, jam, request: { testCase: 'carom', harness }, subjectJson: `"runId":"${id}"`, origin: null, maxRuntimeSeconds: 1 };
};

describe('run queue scripts', () => {
  it('claims in enqueue order and answers empty when drained', async () => {
    const jobs = [run(), run(), run()];
    await queue.add(jobs);
    const claimed = [];
    for (let i = 0; i < 3; i++) claimed.push((await queue.claim('h'))!.claimed!.id);
    expect(claimed).toEqual(jobs.map((job) => job.id));
    expect((await queue.claim('h')).claimed).toBeNull();
    expect(await queue.bull.getActiveCount()).toBe(3);
    const job = await queue.bull.getJob(jobs[0]!.id);
    expect(job?.data).toEqual({ testCase: 'carom', harness: 'claude' });
  });

  it('queues a job once by id: an add sent again, or a lost job queued by two processes, leaves one entry', async () => {
    const jobs = [run(), run()];
    await queue.add(jobs);
    await Promise.all([queue.add(jobs), queue.add([jobs[1]!])]);
    expect(await queue.waitingCount()).toBe(2);
    expect((await queue.claim('h')).claimed!.id).toBe(jobs[0]!.id);
    // A claimed job is not queued again by a late add of it either.
    await queue.add(jobs);
    expect((await queue.claim('h')).claimed!.id).toBe(jobs[1]!.id);
    expect((await queue.claim('h')).claimed).toBeNull();
  });

  it('replaces a stale BullMQ hash left without a run state when the job is queued again', async () => {
    const job = run();
    await queue.add([job]);
    await queue.claim('h');
    await queue.report(job.id, 'failed', { detail: 'x' });
    // Its run state expired; BullMQ kept the finished job among the failed.
    await redis.del(queue.keys.run(job.id));
    await queue.add([{ ...job, request: { again: true } }]);
    expect((await queue.states([job.id]))[0]).toMatchObject({ state: 'queued' });
    expect(await queue.bull.getJobState(job.id)).toBe('waiting');
    expect((await queue.bull.getJob(job.id))?.data).toEqual({ again: true });
  });

  it('sends the claims asked for in one turn in one script call, each with its own token', async () => {
    const calls = vi.spyOn(redis as unknown as { claimNextJob: (...args: unknown[]) => Promise<unknown> }, 'claimNextJob');
    const batched = new RunQueue({ redis, prefix: `tq${randomUUID().slice(0, 8)}` });
    const subscriber = redis.duplicate();
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(batched.keys.consoleChannel);
    try {
      const [a, b, c, d] = [run('claude', 'jam|m'), run('codex', 'jam|m'), run(), run()];
      await batched.add([a!, b!, c!, d!]);
      const results = await Promise.all(['h1', 'h2', 'h3', 'h4', 'h5'].map((hash) => batched.claim(hash)));
      expect(calls).toHaveBeenCalledTimes(1);
      // The second claim passes over the jam run its own call just put in play, and holds it.
      expect(results.map((result) => result.claimed?.id ?? null)).toEqual([a!.id, c!.id, d!.id, null, null]);
      expect(results.map((result) => result.held.map((job) => job.id))).toEqual([[b!.id], [], [], [], []]);
      expect(await Promise.all([a!, c!, d!].map((job) => batched.tokenHash(job.id)))).toEqual(['h1', 'h2', 'h3']);
      expect(results[1]!.claimed).toMatchObject({ seq: c!.seq, requestJson: JSON.stringify(c!.request), origin: null });
      // The call's run events cross the channel as one message, a line each, in the order made.
      await vi.waitFor(() => expect(messages).toHaveLength(1));
      expect(messages[0]![0]).toBe('r');
      expect(messages[0]!.slice(1).split('\n').map((line) => JSON.parse(line) as { state: string; runId: string })
        .map((event) => `${event.state} ${event.runId}`)).toEqual([`dispatched ${a!.id}`, `pending ${b!.id}`, `dispatched ${c!.id}`, `dispatched ${d!.id}`]);
    } finally {
      calls.mockRestore();
      subscriber.disconnect();
      await batched.close();
    }
  });

  it('passes over a bounded number of unclaimable jobs per call, then answers nothing', async () => {
    const bounded = new RunQueue({ redis, prefix: `tq${randomUUID().slice(0, 8)}`, maxHoldsPerClaim: 2 });
    try {
      const jam = [run('claude', 'jam|m'), run('codex', 'jam|m'), run('gemini', 'jam|m'), run('claude', 'jam|m')];
      const free = run();
      await bounded.add([...jam, free]);
      expect((await bounded.claim('t')).claimed!.id).toBe(jam[0]!.id);
      expect(await bounded.claim('t')).toEqual({ claimed: null, held: [jam[1], jam[2]].map((job) => ({ id: job!.id, subjectJson: job!.subjectJson })) });
      const third = await bounded.claim('t');
      expect([third.claimed!.id, third.held.map((job) => job.id)]).toEqual([free.id, [jam[3]!.id]]);
    } finally {
      await bounded.close();
    }
  });

  it('leaves the wait list whole and in order when a call spends its budget between claims', async () => {
    const bounded = new RunQueue({ redis, prefix: `tq${randomUUID().slice(0, 8)}`, maxHoldsPerClaim: 1 });
    try {
      const [first, jammed, next, last] = [run('claude', 'jam|m'), run('codex', 'jam|m'), run(), run()];
      await bounded.add([first!, jammed!, next!, last!]);
      const results = await Promise.all(['h1', 'h2', 'h3'].map((hash) => bounded.claim(hash)));
      expect(results.map((result) => result.claimed?.id ?? null)).toEqual([first!.id, null, null]);
      expect(results[0]!.held.map((job) => job.id)).toEqual([jammed!.id]);
      expect(await bounded.waitingCount()).toBe(2);
      expect([(await bounded.claim('h4')).claimed!.id, (await bounded.claim('h5')).claimed!.id]).toEqual([next!.id, last!.id]);
    } finally {
      await bounded.close();
    }
  });

  it('holds jobs of a capped harness and releases them in order when a slot frees', async () => {
    await queue.setCap('claude', 1, null);
    const [a, b, c, d] = [run(), run(), run(), run('codex')];
    await queue.add([a!, b!, c!, d!]);
    expect((await queue.claim('t')).claimed!.id).toBe(a!.id);
    const second = await queue.claim('t');
    expect(second.held.map((job) => job.id)).toEqual([b!.id, c!.id]);
    expect(second.claimed!.id).toBe(d!.id);
    const finished = await queue.report(a!.id, 'succeeded', { recordId: 'r1' });
    expect(finished.outcome).toBe('applied');
    expect(finished.released.map((job) => job.id)).toEqual([b!.id]);
    expect((await queue.claim('t')).claimed!.id).toBe(b!.id);
    expect((await queue.claim('t')).claimed).toBeNull();
    const raised = await queue.setCap('claude', 3, null);
    expect(raised.map((job) => job.id)).toEqual([c!.id]);
    expect(await queue.bull.getCompletedCount()).toBe(1);
  });

  it('holds jobs as they are queued behind a full harness, so a claim never walks past them', async () => {
    await queue.setCap('claude', 1, null);
    const first = run();
    expect(await queue.add([first])).toEqual([]);
    expect((await queue.claim('t')).claimed!.id).toBe(first.id);
    const capped = Array.from({ length: 300 }, () => run());
    const free = run('codex');
    const held = await queue.add([...capped, free]);
    expect(held.map((job) => job.id)).toEqual(capped.map((job) => job.id));
    expect(await queue.waitingCount()).toBe(1);
    const claim = await queue.claim('t');
    expect(claim.claimed!.id).toBe(free.id);
    expect(claim.held).toEqual([]);
    expect(await queue.claim('t')).toEqual({ claimed: null, held: [] });
    // A newcomer queues behind the held ones, and the freed slot goes to the oldest.
    const late = run();
    expect((await queue.add([late])).map((job) => job.id)).toEqual([late.id]);
    expect((await queue.report(first.id, 'failed', { detail: 'x' })).released.map((job) => job.id)).toEqual([capped[0]!.id]);
    expect((await queue.claim('t')).claimed!.id).toBe(capped[0]!.id);
    expect((await queue.states([late.id]))[0]!.state).toBe('pending');
    // BullMQ still reads each one as its job.
    expect((await queue.bull.getJob(late.id))?.data).toEqual({ testCase: 'carom', harness: 'claude' });
  });

  it('holds a game jam run as it is queued while the same model plays that jam', async () => {
    const [a, b] = [run('claude', 'jam|m'), run('codex', 'jam|m')];
    await queue.add([a!]);
    expect((await queue.claim('t')).claimed!.id).toBe(a!.id);
    expect((await queue.add([b!])).map((job) => job.id)).toEqual([b!.id]);
    expect((await queue.cancel('any', 'stop', { ids: [a!.id] })).released.map((job) => job.id)).toEqual([b!.id]);
    expect((await queue.claim('t')).claimed!.id).toBe(b!.id);
  });

  it('keeps one same-model game jam run in flight', async () => {
    const [a, b] = [run('claude', 'jam|m'), run('codex', 'jam|m')];
    await queue.add([a!, b!]);
    expect((await queue.claim('t')).claimed!.id).toBe(a!.id);
    expect((await queue.claim('t')).held.map((job) => job.id)).toEqual([b!.id]);
    const canceled = await queue.cancel('any', 'stop', { ids: [a!.id] });
    expect(canceled.canceled.map((job) => job.previous)).toEqual(['dispatched']);
    expect(canceled.released.map((job) => job.id)).toEqual([b!.id]);
    expect((await queue.claim('t')).claimed!.id).toBe(b!.id);
  });

  it('applies the driver transition rules', async () => {
    const a = run();
    await queue.add([a]);
    expect((await queue.report(a.id, 'running')).outcome).toBe('unclaimed');
    await queue.claim('t');
    expect((await queue.report(a.id, 'starting')).outcome).toBe('applied');
    expect((await queue.report(a.id, 'running')).outcome).toBe('applied');
    expect((await queue.report(a.id, 'starting')).outcome).toBe('backward');
    expect((await queue.report(a.id, 'canceled')).outcome).toBe('not-canceled');
    await queue.cancel('active', 'operator', { ids: [a.id] });
    expect((await queue.report(a.id, 'succeeded')).outcome).toBe('discarded');
    expect((await queue.report(a.id, 'canceled', { recordId: 'r' })).outcome).toBe('attached');
    expect(await queue.bull.getFailedCount()).toBe(1);
  });

  it('takes canceled queued jobs off the wait list from either end, keeping the rest in order', async () => {
    const jobs = Array.from({ length: 6 }, () => run());
    await queue.add(jobs);
    const gone = [jobs[5]!, jobs[0]!, jobs[2]!];
    const result = await queue.cancel('waiting', 'halt', { ids: gone.map((job) => job.id) });
    expect(result.canceled.map((job) => job.id)).toEqual(gone.map((job) => job.id));
    expect(await redis.lrange(queue.keys.wait, 0, -1)).toEqual([jobs[4]!.id, jobs[3]!.id, jobs[1]!.id]);
    const claimed = [];
    for (let i = 0; i < 4; i++) claimed.push((await queue.claim('t')).claimed?.id ?? null);
    expect(claimed).toEqual([jobs[1]!.id, jobs[3]!.id, jobs[4]!.id, null]);
  });

  it('leaves a canceled job deep in the wait list for the claims to drop, and counts it out', async () => {
    const prefix = `tq${randomUUID().slice(0, 8)}`;
    const reaching = new RunQueue({ redis, prefix, cancelReach: 2 });
    const deployment = openDeploymentQueues(redis, prefix);
    try {
      const jobs = Array.from({ length: 8 }, () => run());
      await reaching.add(jobs);
      // Two entries from the claim end, the middle, and two from the newest end.
      const result = await reaching.cancel('waiting', 'halt', { ids: [jobs[1]!.id, jobs[4]!.id, jobs[6]!.id] });
      expect(result.canceled.map((job) => job.id)).toEqual([jobs[1]!.id, jobs[4]!.id, jobs[6]!.id]);
      const left = [jobs[7]!, jobs[5]!, jobs[4]!, jobs[3]!, jobs[2]!, jobs[0]!].map((job) => job.id);
      expect(await redis.lrange(reaching.keys.wait, 0, -1)).toEqual(left);
      expect(await redis.smembers(reaching.keys.leftBehind)).toEqual([jobs[4]!.id]);
      expect([await reaching.waitListLength(), await reaching.waitingCount()]).toEqual([6, 5]);
      expect((await deployment.counts()).find((counts) => counts.name === RUN_QUEUE)?.waiting).toBe(5);

      const claimed = [];
      for (let i = 0; i < 6; i++) claimed.push((await reaching.claim('t')).claimed?.id ?? null);
      expect(claimed).toEqual([jobs[0]!.id, jobs[2]!.id, jobs[3]!.id, jobs[5]!.id, jobs[7]!.id, null]);
      expect(await redis.exists(reaching.keys.leftBehind)).toBe(0);
      expect(await reaching.takeOrphans()).toEqual([]);
      expect((await reaching.states([jobs[4]!.id]))[0]!.state).toBe('canceled');
    } finally {
      await deployment.close();
      await reaching.close();
    }
  });

  it('drops many left-behind entries in one call, past the hold budget, and forgets one whose state expired', async () => {
    const bounded = new RunQueue({ redis, prefix: `tq${randomUUID().slice(0, 8)}`, cancelReach: 1, maxHoldsPerClaim: 1 });
    try {
      const jobs = Array.from({ length: 22 }, () => run());
      await bounded.add(jobs);
      const halted = jobs.slice(1, 21);
      expect((await bounded.cancel('waiting', 'halt', { ids: halted.map((job) => job.id) })).canceled).toHaveLength(20);
      expect(await bounded.waitingCount()).toBe(2);
      // A left-behind entry can outlive its run's state (a day): it is no orphan.
      await redis.del(bounded.keys.run(halted[0]!.id));
      expect((await bounded.claim('t')).claimed!.id).toBe(jobs[0]!.id);
      // One hold allowed per call, but sixteen drops: the 20 entries take two calls.
      expect((await bounded.claim('t')).claimed).toBeNull();
      expect(await redis.scard(bounded.keys.leftBehind)).toBe(4);
      expect((await bounded.claim('t')).claimed!.id).toBe(jobs[21]!.id);
      expect(await redis.exists(bounded.keys.leftBehind)).toBe(0);
      expect(await bounded.takeOrphans()).toEqual([]);
    } finally {
      await bounded.close();
    }
  });

  it('drains left-behind entries with the waiting queue, skipping them as canceled', async () => {
    const reaching = new RunQueue({ redis, prefix: `tq${randomUUID().slice(0, 8)}`, cancelReach: 1 });
    try {
      const jobs = Array.from({ length: 6 }, () => run());
      await reaching.add(jobs);
      await reaching.cancel('waiting', 'halt', { ids: [jobs[2]!.id, jobs[3]!.id] });
      expect(await redis.scard(reaching.keys.leftBehind)).toBe(2);
      const sweep = await reaching.cancel('waiting', 'sweep', { popWait: 6 });
      expect(sweep.canceled.map((job) => job.id)).toEqual([jobs[0]!.id, jobs[1]!.id, jobs[4]!.id, jobs[5]!.id]);
      expect(sweep.skipped).toEqual([{ id: jobs[2]!.id, state: 'canceled' }, { id: jobs[3]!.id, state: 'canceled' }]);
      expect([await reaching.waitListLength(), await redis.exists(reaching.keys.leftBehind)]).toEqual([0, 0]);
    } finally {
      await reaching.close();
    }
  });

  it('drains the waiting queue in bounded steps', async () => {
    const jobs = Array.from({ length: 25 }, () => run());
    await queue.add(jobs);
    await queue.claim('t');
    const first = await queue.cancel('waiting', 'sweep', { popWait: 10 });
    const rest = await queue.cancel('waiting', 'sweep', { popWait: 100 });
    expect(first.canceled.length + rest.canceled.length).toBe(24);
    expect(await queue.waitingCount()).toBe(0);
    expect(await queue.activeIds()).toEqual([jobs[0]!.id]);
  });

  it('pages the held jobs oldest first, leaving out those held after the pages began', async () => {
    await queue.setCap('claude', 1, null);
    await queue.add([run()]);
    await queue.claim('t');
    const held = Array.from({ length: 7 }, () => run());
    expect(await queue.add(held)).toHaveLength(7);
    const pages: string[][] = [];
    for await (const page of queue.heldPages(3)) {
      pages.push(page);
      if (pages.length === 1) expect(await queue.add([run()])).toHaveLength(1);
    }
    expect(pages).toEqual([held.slice(0, 3), held.slice(3, 6), held.slice(6)].map((jobs) => jobs.map((job) => job.id)));
  });

  it('pages a hold group of 150,000 jobs', async () => {
    // Written as the scripts hold jobs (ids scored by enqueue sequence): a read of them all
    // at once, spread into a push, threw at this size.
    const key = `${queue.keys.pendingPrefix}h:claude`;
    for (let i = 0; i < 150_000; i += 10_000) await redis.zadd(key, ...Array.from({ length: 10_000 }, (_, j) => [i + j, `job-${i + j}`]).flat());
    await redis.sadd(queue.keys.pendingGroups, 'h:claude');
    let count = 0;
    let pages = 0;
    let last = '';
    for await (const page of queue.heldPages(500)) {
      count += page.length;
      pages += 1;
      last = page.at(-1)!;
    }
    expect([count, pages, last]).toEqual([150_000, 300, 'job-149999']);
  });

  it('fails a dispatched job past its lease and a running job past its run time, releasing what they held', async () => {
    await queue.setCap('claude', 1, null);
    const [a, b, c] = [run(), run(), run()];
    await queue.add([a!, b!, c!]);
    expect((await queue.claim('t')).claimed!.id).toBe(a!.id);
    expect((await queue.claim('t')).held.map((job) => job.id)).toEqual([b!.id, c!.id]);
    const sweep = (leaseMs: number) => queue.sweepStale({ leaseMs, graceMs: 0, leaseDetail: 'lease over', runtimeDetail: 'past {max} s' });
    // Within its lease, or with the lease off, a quiet dispatched job stays.
    expect((await sweep(60_000)).failed).toEqual([]);
    expect((await sweep(0)).failed).toEqual([]);

    const lapsed = await vi.waitFor(async () => {
      const result = await sweep(1);
      expect(result.failed).toHaveLength(1);
      return result;
    }, { timeout: 5000, interval: 5 });
    expect(lapsed.failed[0]).toMatchObject({ id: a!.id, previous: 'dispatched', detail: 'lease over' });
    expect(lapsed.released.map((job) => job.id)).toEqual([b!.id]);
    expect((await queue.states([a!.id]))[0]).toMatchObject({ state: 'failed', detail: 'lease over' });
    expect(await queue.bull.getFailedCount()).toBe(1);

    expect((await queue.claim('t')).claimed!.id).toBe(b!.id);
    expect((await queue.report(b!.id, 'running')).outcome).toBe('applied');
    // A job that reported is past the lease's reach; its run time (1 s here) still bounds it.
    const overdue = await vi.waitFor(async () => {
      const result = await sweep(1);
      expect(result.failed).toHaveLength(1);
      return result;
    }, { timeout: 5000, interval: 50 });
    expect(overdue.failed[0]).toMatchObject({ id: b!.id, previous: 'running', detail: 'past 1 s' });
    expect(overdue.released.map((job) => job.id)).toEqual([c!.id]);
    expect(await queue.activeIds()).toEqual([]);
  });

  it('sweeps window by window from the oldest claim, failing only the quiet jobs and keeping the others in order', async () => {
    const jobs = Array.from({ length: 7 }, () => run());
    await queue.add(jobs);
    for (const _ of jobs) await queue.claim('t');
    // Three of them reported: out of the lease's reach. The other four go quiet.
    const reporting = [jobs[1]!, jobs[4]!, jobs[5]!];
    for (const job of reporting) expect((await queue.report(job.id, 'running')).outcome).toBe('applied');
    await new Promise((resume) => setTimeout(resume, 5));
    const failed: string[] = [];
    let calls = 0;
    for (let skip = 0; ;) {
      const result = await queue.sweepStale({ leaseMs: 1, graceMs: 0, leaseDetail: 'lease over', runtimeDetail: '', window: 2 }, skip);
      calls += 1;
      failed.push(...result.failed.map((job) => job.id));
      if (result.last) break;
      skip = result.kept;
    }
    expect(failed).toEqual([jobs[0]!.id, jobs[2]!.id, jobs[3]!.id, jobs[6]!.id]);
    expect(calls).toBe(4);
    expect(await queue.activeIds()).toEqual(reporting.map((job) => job.id));
    expect((await queue.states(failed)).map((state) => state?.state)).toEqual(['failed', 'failed', 'failed', 'failed']);
  });

  it('takes orphans atomically: one pushed while a take is under way waits for the next take', async () => {
    await redis.lpush(queue.keys.orphans, 'a', 'b');
    // Sent on the same connection right behind the take's first command, as a claim could be.
    const [taken] = await Promise.all([queue.takeOrphans(), redis.lpush(queue.keys.orphans, 'c')]);
    expect(taken.sort()).toEqual(['a', 'b']);
    expect(await queue.takeOrphans()).toEqual(['c']);
    expect(await queue.takeOrphans()).toEqual([]);
  });

  it('applies a harness cap only when it is not older than the one applied', async () => {
    await queue.setCap('claude', 2, 2);
    await queue.setCap('claude', 1, 1);
    expect((await queue.caps()).get('claude')).toBe(2);
    await queue.setCap('claude', null, 3);
    expect((await queue.caps()).has('claude')).toBe(false);
  });

  it('frees a game jam\'s slot when the sweep fails its quiet run', async () => {
    const [a, b] = [run('claude', 'jam|m'), run('codex', 'jam|m')];
    await queue.add([a!, b!]);
    expect((await queue.claim('t')).claimed!.id).toBe(a!.id);
    expect((await queue.claim('t')).held.map((job) => job.id)).toEqual([b!.id]);
    const lapsed = await vi.waitFor(async () => {
      const result = await queue.sweepStale({ leaseMs: 1, graceMs: 0, leaseDetail: 'lease over', runtimeDetail: '' });
      expect(result.failed).toHaveLength(1);
      return result;
    }, { timeout: 5000, interval: 5 });
    expect(lapsed.released.map((job) => job.id)).toEqual([b!.id]);
    expect((await queue.claim('t')).claimed!.id).toBe(b!.id);
  });
});

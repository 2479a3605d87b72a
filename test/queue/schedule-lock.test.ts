import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { scheduleAgainKey, scheduleLockKey } from '../../src/queue/queue-keys.js';
import { ScheduleLocks } from '../../src/queue/schedule-lock.js';
import { redisOptionsFromUrl } from '../../src/redis/managed-redis.js';

const prefix = `tl${randomUUID().slice(0, 8)}`;
// Two connections, as two processes would hold.
const one = new Redis(redisOptionsFromUrl(inject('redisUrl')));
const two = new Redis(redisOptionsFromUrl(inject('redisUrl')));
afterAll(() => {
  one.disconnect();
  two.disconnect();
});

/** A promise and the function that settles it, so a holder can be kept inside its lock on demand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('schedule locks', () => {
  it('lets one holder per owner in across connections, and the next one in once it lets go', async () => {
    const a = new ScheduleLocks(one, prefix);
    const b = new ScheduleLocks(two, prefix);
    const inside = gate();
    const release = gate();
    const holding = a.withLock('plan:1', async () => {
      inside.open();
      await release.opened;
      return 'done';
    });
    await inside.opened;
    expect(await b.withLock('plan:1', async () => 'second')).toEqual({ held: false });
    expect(await b.withLock('plan:2', async () => 'other owner')).toEqual({ held: true, value: 'other owner' });
    // A waiting caller gets in as soon as the holder lets go.
    const waiting = b.withLock('plan:1', async () => 'after', { waitMs: 10_000 });
    release.open();
    expect(await holding).toEqual({ held: true, value: 'done' });
    expect(await waiting).toEqual({ held: true, value: 'after' });
    expect(await one.exists(scheduleLockKey(prefix, 'plan:1'))).toBe(0);
  });

  it('releases the claim when the work throws', async () => {
    const locks = new ScheduleLocks(one, prefix);
    await expect(locks.withLock('plan:3', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await locks.withLock('plan:3', async () => 1)).toEqual({ held: true, value: 1 });
  });

  it('lets a claim expire for real under a stalled holder: the next one takes it, the stalled one cannot confirm nor release it', async () => {
    const ttlMs = 150;
    const slow = new ScheduleLocks(one, prefix, { ttlMs });
    const next = new ScheduleLocks(two, prefix, { ttlMs });
    const inside = gate();
    const resume = gate();
    const stalled = slow.withLock('plan:4', async (lock) => {
      inside.open();
      await resume.opened;
      await lock.confirm();
    });
    await inside.opened;
    // Stall this whole process (the holder's renewals with it) well past the TTL, as a
    // blocked event loop would: Redis expires the claim on its own clock.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ttlMs * 3);
    const taken = gate();
    const done = gate();
    const successor = next.withLock('plan:4', async () => {
      taken.open();
      await done.opened;
    });
    await taken.opened;
    resume.open();
    await expect(stalled).rejects.toThrow('expired');
    expect(await one.exists(scheduleLockKey(prefix, 'plan:4'))).toBe(1);
    done.open();
    await successor;
    expect(await one.exists(scheduleLockKey(prefix, 'plan:4'))).toBe(0);
  });

  it('runs a repeating holder again, still holding, once per mark a busy caller left, and leaves no mark behind', async () => {
    const holder = new ScheduleLocks(one, prefix);
    const caller = new ScheduleLocks(two, prefix);
    const inside = gate();
    const release = gate();
    let rounds = 0;
    const holding = holder.withLock('plan:5', async () => {
      rounds += 1;
      if (rounds === 1) {
        inside.open();
        await release.opened;
      }
      return rounds;
    }, { repeatWhileMarked: true });
    await inside.opened;
    // A plain busy caller leaves nothing; two marking callers leave one mark between them.
    expect(await caller.withLock('plan:5', async () => 'plain')).toEqual({ held: false });
    expect(await two.exists(scheduleAgainKey(prefix, 'plan:5'))).toBe(0);
    for (let i = 0; i < 2; i++) expect(await caller.withLock('plan:5', async () => 'marked', { markWhenBusy: true })).toEqual({ held: false });
    release.open();
    expect(await holding).toEqual({ held: true, value: 1 });
    expect(rounds).toBe(2);
    expect(await one.exists(scheduleLockKey(prefix, 'plan:5'))).toBe(0);
    expect(await one.exists(scheduleAgainKey(prefix, 'plan:5'))).toBe(0);
  });

  it('leaves a mark for the next repeating holder when the holder does not act on marks (a halt)', async () => {
    const locks = new ScheduleLocks(one, prefix);
    const inside = gate();
    const release = gate();
    const halt = locks.withLock('plan:6', async () => {
      inside.open();
      await release.opened;
    });
    await inside.opened;
    expect(await locks.withLock('plan:6', async () => 0, { markWhenBusy: true })).toEqual({ held: false });
    release.open();
    await halt;
    expect(await one.exists(scheduleAgainKey(prefix, 'plan:6'))).toBe(1);
    let rounds = 0;
    await locks.withLock('plan:6', async () => (rounds += 1), { repeatWhileMarked: true });
    expect(rounds).toBe(2);
    expect(await one.exists(scheduleAgainKey(prefix, 'plan:6'))).toBe(0);
  });
});

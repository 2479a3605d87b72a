import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/db/dialect.js';
import { jobsTable, type JobsTable } from '../../src/db/jobs-table.js';
import type { Database } from '../../src/db/open-database.js';
import { dispatchRecorder } from '../../src/jobs/dispatch-recorder.js';
import { jobRow as row, useTempStore } from '../helpers/temp-store.js';
import { until } from '../helpers/until.js';

const store = useTempStore('evb-dispatch-');
let db: Database;
let jobs: JobsTable;
beforeEach(() => {
  db = store.db;
  jobs = jobsTable(sqliteStore(db));
});

describe('claims copied to SQLite behind their answers, by the writer thread', () => {
  it('answers for a claim until its row is written, then the row holds it', async () => {
    const [seq] = await jobs.insert([row('j1')]);
    const recorder = dispatchRecorder(sqliteStore(db), db, (error) => { throw error; });
    try {
      const claimedAt = Date.now();
      recorder.record('j1', seq!, 'hash-1');
      expect(recorder.pendingTokenHash('j1')).toBe('hash-1');
      expect(await jobs.get('j1')).toMatchObject({ state: 'queued', tokenHash: null });
      expect(await recorder.settled()).toBe(true);
      expect(await jobs.get('j1')).toMatchObject({ state: 'dispatched', tokenHash: 'hash-1' });
      // The claim's own time, not the write's, formatted as every other stored time.
      const dispatchedAt = (await jobs.get('j1'))!.dispatchedAt!;
      expect(dispatchedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(dispatchedAt) - claimedAt).toBeGreaterThanOrEqual(0);
      expect(Date.parse(dispatchedAt) - claimedAt).toBeLessThan(20);
      expect(recorder.pendingTokenHash('j1')).toBeUndefined();
      // The writer checkpoints the log; this connection stops doing it inline meanwhile.
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    } finally {
      await recorder.close();
    }
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it('never moves a row back: a report or cancel that landed first keeps its state', async () => {
    const [a, b] = await jobs.insert([row('started'), row('canceled')]);
    const recorder = dispatchRecorder(sqliteStore(db), db, (error) => { throw error; });
    recorder.record('started', a!, 'hash-a');
    recorder.record('canceled', b!, 'hash-b');
    await jobs.markStarted('started', 'starting', '2026-11-25T00:00:01.000Z');
    await jobs.markAllFinished(['canceled'], 'canceled', 'stop', '2026-11-25T00:00:01.000Z');
    await recorder.close();
    expect(await jobs.get('started')).toMatchObject({ state: 'starting', tokenHash: 'hash-a' });
    expect(await jobs.get('canceled')).toMatchObject({ state: 'canceled', tokenHash: 'hash-b' });
  });

  it('keeps a claim the store refused and writes it once the store is free', async () => {
    const [seq] = await jobs.insert([row('j1')]);
    const errors: unknown[] = [];
    const recorder = dispatchRecorder(sqliteStore(db), db, (error) => errors.push(error));
    // Another connection holds the write lock: the writer waits, then reports and retries.
    db.exec('BEGIN IMMEDIATE');
    recorder.record('j1', seq!, 'hash-1');
    // A read waits a bounded time for the claim, then goes on with what the store holds.
    expect(await recorder.settled(100)).toBe(false);
    await until(() => errors.length > 0, 15_000, 'the refused write reported');
    expect(recorder.pendingTokenHash('j1')).toBe('hash-1');
    db.exec('COMMIT');
    expect(await recorder.settled(15_000)).toBe(true);
    expect((await jobs.get('j1'))!.tokenHash).toBe('hash-1');
    await recorder.close();
  }, 30_000);

  it('says once that the store refuses writes and once that it takes them again, however many batches wait meanwhile', async () => {
    const seqs = await jobs.insert(Array.from({ length: 40 }, (_, i) => row(`j${i}`)));
    const lines: string[] = [];
    const recorder = dispatchRecorder(sqliteStore(db), db, (error) => lines.push(String(error)), undefined, { onResumed: () => lines.push('resumed') });
    // SQLite itself refuses every claim's write, at once rather than after a lock's wait.
    db.exec(`CREATE TRIGGER refuse_claims BEFORE UPDATE ON jobs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    try {
      // Forty batches, each handed over on its own.
      for (const [i, seq] of seqs.entries()) {
        recorder.record(`j${i}`, seq, `hash-${i}`);
        expect(await recorder.settled(1)).toBe(false);
      }
      await until(() => lines.length > 0, 15_000, 'the refusal reported');
      // The writer keeps trying meanwhile: a second's worth of retries is a second's worth of
      // lines if each is logged (forty batches every 100 ms were 400).
      await sleep(1000);
      expect(lines).toEqual([expect.stringMatching(/^Error: SQLite refuses claim writes \(database or disk is full\); retrying with backoff/)]);
    } finally {
      db.exec('DROP TRIGGER refuse_claims');
    }
    expect(await recorder.settled(15_000)).toBe(true);
    expect(lines.slice(1)).toEqual(['resumed']);
    expect(await jobs.get('j39')).toMatchObject({ state: 'dispatched', tokenHash: 'hash-39' });
    expect((await Promise.all(seqs.map((_, i) => jobs.get(`j${i}`)))).filter((job) => job!.state !== 'dispatched')).toEqual([]);
    await recorder.close();
  }, 30_000);

  it('holds at most its bound of unwritten claims, and tells how many it left to Redis once the store takes writes', async () => {
    const seqs = await jobs.insert([row('j1'), row('j2'), row('j3'), row('j4')]);
    const errors: string[] = [];
    const dropped: number[] = [];
    const recorder = dispatchRecorder(sqliteStore(db), db, (error) => errors.push(String(error)), undefined, { maxUnwritten: 2, onDropped: (count) => dropped.push(count) });
    db.exec('BEGIN IMMEDIATE');
    try {
      seqs.forEach((seq, i) => recorder.record(`j${i + 1}`, seq, `hash-${i + 1}`));
      expect(['j1', 'j2', 'j3', 'j4'].map((id) => recorder.pendingTokenHash(id))).toEqual(['hash-1', 'hash-2', undefined, undefined]);
      // Said once, when it starts leaving claims out.
      expect(errors.filter((error) => error.includes('left to Redis'))).toHaveLength(1);
      expect(dropped).toEqual([]);
    } finally {
      db.exec('COMMIT');
    }
    expect(await recorder.settled(15_000)).toBe(true);
    expect(dropped).toEqual([2]);
    expect(await jobs.get('j2')).toMatchObject({ state: 'dispatched', tokenHash: 'hash-2' });
    expect(await jobs.get('j4')).toMatchObject({ state: 'queued', tokenHash: null });
    await recorder.close();
  }, 30_000);

  it('starts a writer thread that died again, and hands it the claims the dead one never wrote', async () => {
    const [seq] = await jobs.insert([row('j1')]);
    const writers: Worker[] = [];
    const recorder = dispatchRecorder(sqliteStore(db), db, () => {}, (writer) => writers.push(writer));
    try {
      // The claim is handed to a writer that is already gone: the message is lost with it.
      await writers[0]!.terminate();
      recorder.record('j1', seq!, 'hash-1');
      expect(await recorder.settled(100)).toBe(false);
      expect(await recorder.settled(15_000)).toBe(true);
      expect(writers).toHaveLength(2);
      expect(await jobs.get('j1')).toMatchObject({ state: 'dispatched', tokenHash: 'hash-1' });
      expect(recorder.pendingTokenHash('j1')).toBeUndefined();
    } finally {
      await recorder.close();
    }
  }, 30_000);

  it('shuts down cleanly while its write waits on a store that stays locked, leaving the claim to Redis', async () => {
    const [seq] = await jobs.insert([row('j1')]);
    const errors: string[] = [];
    const recorder = dispatchRecorder(sqliteStore(db), db, (error) => errors.push(String(error)));
    db.exec('BEGIN IMMEDIATE');
    try {
      recorder.record('j1', seq!, 'hash-1');
      // The writer is inside a write that waits on the lock: ending the thread there took the
      // whole process down; it is asked to stop instead, and does once the write gives up.
      await recorder.close();
    } finally {
      db.exec('COMMIT');
    }
    expect(errors.some((error) => error.includes('the next boot copies them from Redis'))).toBe(true);
    expect(await jobs.get('j1')).toMatchObject({ state: 'queued', tokenHash: null });
  }, 40_000);
});

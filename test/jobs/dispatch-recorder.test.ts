import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jobsTable, type JobsTable, type NewJobRow } from '../../src/db/jobs-table.js';
import { openDatabase, type Database } from '../../src/db/open-database.js';
import { dispatchRecorder } from '../../src/jobs/dispatch-recorder.js';
import { until } from '../helpers/until.js';

let dir: string;
let db: Database;
let jobs: JobsTable;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'evb-dispatch-'));
  db = openDatabase(join(dir, 'backend.sqlite'));
  jobs = jobsTable(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string): NewJobRow => ({
  id, accountId: 'a', origin: null, testCaseSlug: 'carom', testCaseVersion: 'v1.1.0', variant: 'base', harnessSlug: 'claude',
  modelId: 'm', provider: null, engine: null, testType: 'end-to-end', ggConfigId: null, ggPreset: null, request: '{}', enqueuedAt: '2026-11-25T00:00:00.000Z',
});

describe('claims copied to SQLite behind their answers', () => {
  it('answers for a claim until its row is written, then the row holds it', async () => {
    const [seq] = jobs.insert([row('j1')]);
    const recorder = dispatchRecorder(jobs, (error) => { throw error; });
    recorder.record('j1', seq!, 'hash-1');
    expect(recorder.pendingTokenHash('j1')).toBe('hash-1');
    expect(jobs.get('j1')).toMatchObject({ state: 'queued', tokenHash: null });
    await until(() => jobs.get('j1')!.tokenHash === 'hash-1', 2000, 'the claim written');
    expect(jobs.get('j1')!.state).toBe('dispatched');
    expect(recorder.pendingTokenHash('j1')).toBeUndefined();
  });

  it('never moves a row back: a report or cancel that landed first keeps its state', () => {
    const [a, b] = jobs.insert([row('started'), row('canceled')]);
    const recorder = dispatchRecorder(jobs, (error) => { throw error; });
    recorder.record('started', a!, 'hash-a');
    recorder.record('canceled', b!, 'hash-b');
    jobs.markStarted('started', 'starting', '2026-11-25T00:00:01.000Z');
    jobs.markAllFinished(['canceled'], 'canceled', 'stop', '2026-11-25T00:00:01.000Z');
    recorder.flush();
    expect(jobs.get('started')).toMatchObject({ state: 'starting', tokenHash: 'hash-a' });
    expect(jobs.get('canceled')).toMatchObject({ state: 'canceled', tokenHash: 'hash-b' });
  });

  it('keeps claims whose write failed and writes them on a later try', async () => {
    const [seq] = jobs.insert([row('j1')]);
    const errors: unknown[] = [];
    // Another connection holds the write lock past this one's busy timeout.
    const other = openDatabase(join(dir, 'backend.sqlite'));
    db.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    const recorder = dispatchRecorder(jobs, (error) => errors.push(error));
    recorder.record('j1', seq!, 'hash-1');
    recorder.flush();
    expect(errors).toHaveLength(1);
    expect(recorder.pendingTokenHash('j1')).toBe('hash-1');
    other.exec('COMMIT');
    other.close();
    await until(() => jobs.get('j1')!.tokenHash === 'hash-1', 2000, 'the claim written');
    expect(recorder.pendingTokenHash('j1')).toBeUndefined();
  });
});

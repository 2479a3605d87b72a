import { beforeEach, describe, expect, it } from 'vitest';
import { jobsTable, type JobsTable } from '../../src/db/jobs-table.js';
import { runSubject } from '../../src/events/run-events.js';
import { activeJobsJson } from '../../src/jobs/active-jobs.js';
import { ENGINES, engineStores } from '../helpers/engine-stores.js';
import { jobRow } from '../helpers/temp-store.js';

const stores = engineStores();

const row = (i: number) => jobRow(`job-${String(i).padStart(4, '0')}`, {
  origin: i % 3 === 0 ? 'plan:p1' : null, harnessSlug: i % 2 ? 'codex' : 'claude', engine: i % 5 === 0 ? 'godot' : null, request: '{"large":"not listed"}',
});

async function collect(chunks: AsyncGenerator<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe.each(ENGINES)('the active list on %s, read a page at a time', (engine) => {
  let jobs: JobsTable;
  beforeEach(async () => {
    jobs = jobsTable(await stores.fresh(engine));
  });

  it('lists every job in flight in queue order across pages, as the whole list would, and none that finished', async () => {
    await jobs.insert(Array.from({ length: 1201 }, (_, i) => row(i)));
    // Gaps on and around the page boundaries.
    await jobs.markAllFinished(['job-0000', 'job-0499', 'job-0500', 'job-0501', 'job-1200'], 'canceled', 'gone', '2026-11-26T00:00:01.000Z');
    await jobs.markStarted('job-0002', 'running', '2026-11-26T00:00:02.000Z');
    const chunks = await collect(activeJobsJson(jobs));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    const listed = JSON.parse(chunks.join('')) as { jobs: Array<Record<string, unknown>> };
    const expected = (await jobs.inFlight()).map((job) => ({
      ...runSubject(job), state: job.state, origin: job.origin, enqueuedAt: job.enqueuedAt, startedAt: job.startedAt,
    }));
    expect(listed.jobs).toHaveLength(1196);
    expect(listed.jobs).toEqual(expected);
    expect(listed.jobs.find((job) => job.runId === 'job-0002')).toMatchObject({ state: 'running', startedAt: '2026-11-26T00:00:02.000Z' });
    expect(listed.jobs.find((job) => job.runId === 'job-0005')).toMatchObject({ engine: 'godot' });
  });

  it('is an empty list when nothing is in flight', async () => {
    expect(JSON.parse((await collect(activeJobsJson(jobs))).join(''))).toEqual({ jobs: [] });
    await jobs.insert([row(1)]);
    await jobs.markAllFinished(['job-0001'], 'failed', 'x', '2026-11-26T00:00:01.000Z');
    expect(JSON.parse((await collect(activeJobsJson(jobs))).join(''))).toEqual({ jobs: [] });
  });
});

import { badRequest, notFound } from '../errors.js';
import type { ListState } from '../contract/vocabulary.js';
import { DEFAULT_LIMIT, MAX_LIMIT, type ListFilters, type RunListing } from './list-runs.js';
import type { RunGrades } from './run-grades.js';
import type { RunRows } from './run-rows.js';
import { runDetail, summaryCardJson, type RunDetail } from './run-views.js';

export interface ListRunsQuery extends Omit<ListFilters, 'versions' | 'testCases'> {
  state?: ListState;
  fields?: 'summary';
  before?: string;
  offset?: number;
  limit?: number;
  versions?: string;
  testCases?: string;
}

export interface ReadDeps {
  rows: RunRows;
  grades: RunGrades;
  listing: RunListing;
}

const splitList = (value: string | undefined) =>
  value === undefined ? undefined : value.split(',').map((part) => part.trim()).filter((part) => part !== '');

/**
 * `GET /runs`. A summary page answers JSON text spliced from pre-serialized cards; a full
 * page answers detail objects. `offset` (with `fields=summary`) selects a numbered page
 * `{ runs, total }`; without it a page is the cursor's (the first when `before` is absent),
 * `{ runs, nextBefore }`, which ignores filters and sort.
 */
export async function listRuns(deps: ReadDeps, query: ListRunsQuery): Promise<{ json: string } | { runs: RunDetail[]; nextBefore: string | null }> {
  const state = query.state ?? 'published';
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const summary = query.fields === 'summary';
  if (query.offset !== undefined && !summary) throw badRequest('querystring.offset needs fields=summary: numbered pages exist only for summary cards.');
  if (query.offset !== undefined && query.before !== undefined) throw badRequest('querystring.offset cannot be combined with before: pick one pagination mode.');
  const offsetMode = query.offset !== undefined;
  if ((state === 'any' || state === 'publishable') && !offsetMode) {
    throw badRequest(`querystring.state=${state} exists only on numbered summary pages (fields=summary with offset).`);
  }

  if (offsetMode) {
    const filters: ListFilters = { ...query, versions: splitList(query.versions), testCases: splitList(query.testCases) };
    const page = await deps.listing.offset(state, filters, query.offset!, limit);
    const rows = await deps.grades.freshen(page.rows);
    return { json: `{"runs":[${rows.map(summaryCardJson).join(',')}],"total":${page.total}}` };
  }
  const page = await deps.listing.cursor(state, query.before, limit);
  const rows = await deps.grades.freshen(page.rows);
  if (summary) return { json: `{"runs":[${rows.map(summaryCardJson).join(',')}],"nextBefore":${JSON.stringify(page.nextBefore)}}` };
  // A full page reads each record by id; only these pages need it.
  const details: RunDetail[] = [];
  for (const row of rows) {
    const full = await deps.rows.get(row.id);
    if (full) details.push(runDetail(full, await deps.rows.reviews(row.id)));
  }
  return { runs: details, nextBefore: page.nextBefore };
}

/** `GET /runs/{id}`: 404 for an unknown run and for one whose record this build cannot read. */
export async function getRun(deps: ReadDeps, id: string): Promise<RunDetail> {
  const row = await deps.rows.get(id);
  if (!row || row.decode_error !== null) throw notFound(`No run ${id}.`);
  const [fresh] = await deps.grades.freshen([row]);
  return runDetail(fresh!, await deps.rows.reviews(id));
}

export async function runEvents(deps: ReadDeps, id: string): Promise<string> {
  const events = await deps.rows.events(id);
  if (events === null) throw notFound(`No run ${id}.`);
  return events;
}

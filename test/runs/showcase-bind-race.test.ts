/**
 * A showcase upload racing another job's report of the same run id (issue 39 item 4). The
 * upload checks who owns the run, then binds the run id to its job; another job storing the
 * run in between must still make the upload a 409, never media bound into that job's run.
 * The race is forced: the owner read is wrapped so that the other job's run is stored right
 * after it, through the real record sink.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsTable } from '../../src/db/jobs-table.js';
import { showcaseUploadsTable } from '../../src/db/showcase-uploads-table.js';
import { showcaseUploads } from '../../src/runs/upload-showcase.js';
import { EXAMPLE_CATALOG } from '../helpers/example-catalog.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { runRecord } from '../helpers/run-record-builder.js';
import { ingestCatalog } from '../helpers/runs-test-helpers.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const launch = { testCase: 'skiff-race', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let operator: string;

beforeAll(async () => {
  backend = await startTestBackend({ CATALOG_DIR: EXAMPLE_CATALOG, SERVICE_TOKEN: SERVICE }, { pricedModels: [launch.model] });
  await ingestCatalog(backend, ['skiff-race']);
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  operator = (await backend.auth.register('operator')).token;
});
afterAll(() => backend?.close());

async function runningJob(): Promise<string> {
  expect((await http.post('/jobs', operator, launch)).status).toBe(202);
  const { body } = await http.post('/jobs/next', SERVICE);
  await http.post(`/jobs/${body.jobId}/status`, body.jobToken, { state: 'running' });
  return body.jobId as string;
}

describe('a showcase upload racing another job storing the run', () => {
  it('is refused with 409 naming the job that stored the run, and binds nothing', async () => {
    const [uploader, reporter] = [await runningJob(), await runningJob()];
    const { app } = backend;
    const { rows } = app.runs;
    let stored = false;
    const upload = showcaseUploads({
      rows: {
        ...rows,
        // Right after the owner check, the other job's record of the same run id lands.
        async owner(runId: string) {
          const owner = await rows.owner(runId);
          if (!stored) {
            stored = true;
            await (await app.runs.records.store(reporter, runRecord({ id: 'contested', state: 'hung' }), [])).graded;
          }
          return owner;
        },
      },
      jobs: jobsTable(app.store),
      uploads: showcaseUploadsTable(app.store),
      blobs: app.blobs,
      maxBytes: 1 << 20,
      jobBounds: { files: 10, bytes: 1 << 20 },
      requestSnapshot: async () => {},
    });
    await expect(upload({ runId: 'contested', file: 'shot.png', jobId: uploader, contentLength: PNG.length, body: Readable.from([PNG]) }))
      .rejects.toMatchObject({ statusCode: 409, message: `Run contested belongs to job ${reporter}; job ${uploader} cannot upload its media.` });
    expect(await app.store.db.selectFrom('showcase_uploads').selectAll().where('job_id', '=', uploader).execute()).toEqual([]);
    expect(await rows.owner('contested')).toEqual({ jobId: reporter });
  });
});

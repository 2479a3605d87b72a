import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedCatalog } from '../helpers/jobs-fixtures.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { bearer, FILES_UNDER_DATA_DIR, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

const SERVICE = 'dispatch-secret';
const launch = { testCase: 'carom', version: 'v1.1.0', variant: 'base', harness: 'codex', model: 'openai/gpt-5' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let backend: TestBackend;
let base: string;
let mediaDir: string;
let outside: string;
let newJob: () => Promise<{ jobId: string; jobToken: string }>;
/** The running job that uploads; each describe takes its own, since a job uploads for one run only. */
let job: { jobId: string; jobToken: string };

beforeAll(async () => {
  backend = await startTestBackend({ SERVICE_TOKEN: SERVICE, SHOWCASE_UPLOAD_MAX_MIB: '0.001', ...FILES_UNDER_DATA_DIR }, { pricedModels: [launch.model] });
  await seedCatalog(backend.store, backend.dataDir, [{ slug: 'carom', version: 'v1.1.0' }]);
  base = await backend.app.listen({ host: '127.0.0.1', port: 0 });
  mediaDir = join(backend.dataDir, 'run-media');
  outside = mkdtempSync(join(tmpdir(), 'evb-outside-'));
  const http = jobsHttp(base);
  const operator = (await backend.auth.register('operator')).token;
  newJob = async () => {
    expect((await http.post('/jobs', operator, launch)).status).toBe(202);
    const claimed = (await http.post('/jobs/next', SERVICE)).body as { jobId: string; jobToken: string };
    await http.post(`/jobs/${claimed.jobId}/status`, claimed.jobToken, { state: 'running' });
    return claimed;
  };
});
beforeEach(async () => {
  job = await newJob();
});
afterAll(async () => {
  await backend.close();
  rmSync(outside, { recursive: true, force: true });
});

const put = (runId: string, file: string, body: Buffer | ReadableStream) =>
  fetch(`${base}/runs/${runId}/showcase/${file}`, {
    method: 'PUT', body, headers: { ...bearer(job.jobToken), 'x-svc-job-id': job.jobId }, duplex: 'half',
  } as RequestInit);

describe('showcase upload names', () => {
  it.each(['%252e%252e%252fpwn.png', '.hidden.png', '.png', 'a%20b.png', '-rf.png', 'caf%C3%A9.png', `${'a'.repeat(197)}.png`])(
    'refuses %s (422) and writes nothing',
    async (file) => {
      const response = await put('run-names', file, PNG);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('one plain file name');
      expect(existsSync(join(mediaDir, 'run-names'))).toBe(false);
    },
  );

  it('accepts letters, digits, dots, underscores and dashes', async () => {
    expect((await put('run-names', 'Title_screen-2.final.png', PNG)).status).toBe(201);
    expect((await fetch(`${base}/runs/run-names/showcase/Title_screen-2.final.png`)).status).toBe(200);
  });
});

describe('serving showcase media', () => {
  it('does not follow a symlink planted in run-media, whether it is the file or the run folder', async () => {
    mkdirSync(join(mediaDir, 'run-planted', 'showcase'), { recursive: true });
    symlinkSync('/etc/passwd', join(mediaDir, 'run-planted', 'showcase', 'passwd.png'));
    mkdirSync(join(outside, 'showcase'));
    writeFileSync(join(outside, 'showcase', 'secret.png'), 'not yours');
    symlinkSync(outside, join(mediaDir, 'run-linked'));
    writeFileSync(join(mediaDir, 'run-planted', 'showcase', '.hidden.png'), PNG);

    for (const url of ['/runs/run-planted/showcase/passwd.png', '/runs/run-linked/showcase/secret.png', '/runs/run-planted/showcase/.hidden.png']) {
      const response = await fetch(`${base}${url}`);
      expect(response.status, url).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('does not write an upload through a run folder linked out of run-media', async () => {
    symlinkSync(outside, join(mediaDir, 'run-escape'));
    const response = await put('run-escape', 'shot.png', PNG);
    expect(response.status).toBe(422);
    expect(readdirSync(join(outside, 'showcase'))).toEqual(['secret.png']);
    expect(readdirSync(outside)).toEqual(['showcase']);
  });
});

describe('an upload over the cap', () => {
  it('never leaves its temporary file behind, however early the copy fails', async () => {
    // The copy used to fail before the write stream had opened its file; the cleanup then
    // ran first and the file appeared afterwards. Repeated, since it is a race.
    for (let attempt = 0; attempt < 60; attempt++) {
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(400));
          controller.close();
        },
      });
      const response = await put('run-cap', 'big.png', chunks);
      expect(response.status).toBe(413);
      await response.body?.cancel();
      expect(readdirSync(join(mediaDir, 'run-cap'), { recursive: true })).toEqual(['showcase']);
    }
  });
});

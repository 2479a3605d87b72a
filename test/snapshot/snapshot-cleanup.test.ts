import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { bucketSnapshot } from '../../src/snapshot/bucket-snapshot.js';
import { snapshotWriter } from '../../src/snapshot/write-snapshot.js';
import { s3Environment, startTestS3, type TestS3Server } from '../helpers/s3-server.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let s3: TestS3Server;
let proxy: Server;
let proxyUrl: string;
let dataDir: string;
/** Requests the bucket saw through the proxy (method and URL). */
const seen: string[] = [];
/** A request whose URL holds this answers 503, as a bucket failing one listing would. */
let failing = '\u0000';

beforeAll(async () => {
  backend = await startTestBackend({ RUN_WORKERS: 'false' });
  s3 = await startTestS3();
  dataDir = mkdtempSync(join(tmpdir(), 'evb-cleanup-'));
  // The bucket behind a loopback proxy that fails the requests naming one version.
  const target = new URL(s3.endpoint);
  proxy = createServer((incoming, answer) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    if (incoming.url?.includes(failing)) {
      incoming.resume();
      answer.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code><Message>no</Message></Error>');
      return;
    }
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (reply) => {
      answer.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(answer);
    });
    forwarded.on('error', () => answer.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => proxy?.close(done));
  await s3?.close();
  await backend?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('snapshot clean-up in a bucket', () => {
  it('finds versions by one delimited listing and removes the others when one cannot be removed', async () => {
    const blobs = openBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3Environment(proxyUrl, 'cleanup') }));
    const output = bucketSnapshot(blobs);
    const old = ['000000001-aaaaaaaa', '000000002-bbbbbbbb', '000000003-cccccccc'];
    for (const name of old) {
      const draft = await output.begin(name);
      await draft.writeText('runs.json', '{"schemaVersion":1,"runs":[]}');
      for (let i = 0; i < 5; i++) await draft.writeText(`runs/run-${i}.json`, '{}');
    }
    await output.publish('000000003-cccccccc');
    const warnings: string[] = [];
    const { rows, grades } = backend.app.runs;
    const writer = snapshotWriter({
      store: backend.store, rows, grades, blobs, output, deployHook: null, onWarning: (message) => warnings.push(message), exclusive: (work) => work(), replacedGraceMs: 0,
    });
    failing = 'aaaaaaaa';
    seen.length = 0;
    try {
      await writer.refresh();
    } finally {
      failing = '\u0000';
    }
    const versions = await output.versions();
    // The one that failed stays (and is named in the warning); the other replaced one is gone.
    expect(versions).toContain('000000001-aaaaaaaa');
    expect(versions).not.toContain('000000002-bbbbbbbb');
    expect(versions).toContain('000000003-cccccccc');
    expect(versions).toHaveLength(3);
    expect(warnings.join('\n')).toContain('000000001-aaaaaaaa');
    // Version names came from a delimited listing, not from every object of every version.
    const listings = seen.filter((line) => line.startsWith('GET') && line.includes('list-type=2') && line.includes(encodeURIComponent('cleanup/snapshot/versions/')));
    expect(listings.some((line) => line.includes('delimiter=%2F'))).toBe(true);
    expect(listings.filter((line) => !line.includes('delimiter=') && line.includes(`prefix=${encodeURIComponent('cleanup/snapshot/versions/')}&`) )).toEqual([]);

    // With the bucket healthy again, the next refresh removes it.
    await writer.refresh();
    expect(await output.versions()).toHaveLength(2);
    blobs.close();
  }, 60_000);
});

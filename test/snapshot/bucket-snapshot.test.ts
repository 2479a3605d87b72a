import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob/blob-store.js';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { bucketSnapshot, bucketSnapshotFile } from '../../src/snapshot/bucket-snapshot.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';

let s3: TestS3Server;
let blobs: BlobStore;
let dataDir: string;

beforeAll(async () => {
  s3 = await startTestS3();
  dataDir = mkdtempSync(join(tmpdir(), 'evb-bucket-snapshot-'));
  blobs = openBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3.env('snapshots') }));
});
afterAll(async () => {
  blobs?.close();
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const readFile = async (rel: string) => {
  const file = await bucketSnapshotFile(blobs, rel);
  return file ? text(file.body) : null;
};

describe('the snapshot in a bucket', () => {
  it('shows a version only once its pointer is put, and answers the version it replaced', async () => {
    const output = bucketSnapshot(blobs);
    expect(await readFile('runs.json')).toBeNull(); // no pointer yet

    const first = await output.begin('000000001-aaaaaaaa');
    await first.writeStream('runs.json', Readable.from(['{"runs":', '[1]}']));
    await first.writeText('runs/a.json', '{"id":"a"}');
    expect(await readFile('runs.json')).toBeNull();
    expect(await output.publish('000000001-aaaaaaaa')).toBeNull();
    expect(await readFile('runs.json')).toBe('{"runs":[1]}');

    const second = await output.begin('000000002-bbbbbbbb');
    await second.writeStream('runs.json', Readable.from(['{"runs":[2]}']));
    // Half written: readers still see the first version whole.
    expect(await readFile('runs.json')).toBe('{"runs":[1]}');
    expect(await readFile('runs/a.json')).toBe('{"id":"a"}');
    expect(await output.publish('000000002-bbbbbbbb')).toBe('000000001-aaaaaaaa');
    expect(await readFile('runs.json')).toBe('{"runs":[2]}');
    expect(await readFile('runs/a.json')).toBeNull();

    expect(await output.versions()).toEqual(['000000001-aaaaaaaa', '000000002-bbbbbbbb']);
    await output.discard('000000001-aaaaaaaa');
    expect(await output.versions()).toEqual(['000000002-bbbbbbbb']);
  });

  it('serves only plain paths inside the current version', async () => {
    for (const rel of ['', 'runs', '../current', '..', 'runs/../runs.json', '.hidden', 'runs//a.json']) {
      expect(await bucketSnapshotFile(blobs, rel), rel).toBeNull();
    }
  });
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob/blob-store.js';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { definitionCopies, DEFINITION_FETCH_READS } from '../../src/catalog/definition-copies.js';
import { loadConfig } from '../../src/config.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';

// A cold definition cache (a big re-ingest, a new machine) fetches its copies from the
// bucket through one bounded queue per process, shared by every fetch, and a copy asked for
// twice at once is fetched once: the sockets driver uploads and launches need stay free.
const VERSIONS = 24;
const FILES = 12;

let s3: TestS3Server;
let bucket: BlobStore;
let dataDir: string;
let inFlight = 0;
let mostInFlight = 0;
const reads = new Map<string, number>();

/** The real store, counting the reads in flight at once and the reads of each key. */
const counted = (store: BlobStore): BlobStore => ({
  ...store,
  async read(key) {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    reads.set(key, (reads.get(key) ?? 0) + 1);
    try {
      return await store.read(key);
    } finally {
      inFlight -= 1;
    }
  },
});

const copyName = (i: number) => `${i.toString(16).padStart(16, '0')}-0000000${i % 10}`;
const storeDir = (i: number) => join('/elsewhere/definitions', `case-${i}`, 'v1.0.0', copyName(i));

beforeAll(async () => {
  s3 = await startTestS3();
  dataDir = mkdtempSync(join(tmpdir(), 'evb-copies-'));
  bucket = openBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3.env('copies') }));
  for (let i = 0; i < VERSIONS; i++) {
    const prefix = `definitions/case-${i}/v1.0.0/${copyName(i)}`;
    await Promise.all(Array.from({ length: FILES }, (_, f) => bucket.put(`${prefix}/source/file-${f}.txt`, `case ${i} file ${f}`)));
    await bucket.put(`${prefix}/resolved.json`, JSON.stringify({ slug: `case-${i}` }));
  }
}, 120_000);
afterAll(async () => {
  bucket?.close();
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('definition copies fetched from the bucket', () => {
  it('fetch through one bounded queue shared by every fetch of the process, and fetch a copy asked for at once only once', async () => {
    const root = join(dataDir, 'definitions');
    // Two readers of one process (the catalog and the snapshot grader) asking at once.
    const first = definitionCopies(counted(bucket), root);
    const second = definitionCopies(counted(bucket), root);
    const dirs = await Promise.all(Array.from({ length: VERSIONS }, (_, i) => [first.local(storeDir(i)), second.local(storeDir(i))]).flat());
    expect(mostInFlight).toBeGreaterThan(0);
    expect(mostInFlight).toBeLessThanOrEqual(DEFINITION_FETCH_READS);
    expect(dirs[0]).toBe(dirs[1]);
    expect(readFileSync(join(dirs[2 * 5]!, 'source', 'file-3.txt'), 'utf8')).toBe('case 5 file 3');
    expect(Math.max(...reads.values())).toBe(1);
    expect(reads.size).toBe(VERSIONS * (FILES + 1));
  }, 120_000);
});

describe('the sweep of fetched copies', () => {
  // A machine that does not ingest fetches a full copy per re-ingest; without the sweep
  // every superseded or pruned copy stayed on its disk until the disk filled.
  it('removes a copy once two sweeps in a row found the index not naming it, and keeps what is named or being written', async () => {
    const root = join(dataDir, 'swept');
    const copies = definitionCopies(bucket, root);
    const superseded = await copies.local(storeDir(0));
    const pruned = await copies.local(storeDir(1));
    const current = await copies.local(storeDir(2));
    const staging = join(root, 'case-2', 'v1.0.0', '.staging-fetch-12345678');
    mkdirSync(staging, { recursive: true });

    expect(await copies.sweep([storeDir(2)])).toEqual([]);
    expect(existsSync(superseded)).toBe(true);
    expect(existsSync(pruned)).toBe(true);
    // The second sweep: the pruned copy goes with its empty folders; the superseded one is
    // named again (the index moved back), so it stays and its count starts afresh.
    expect(await copies.sweep([storeDir(0), storeDir(2)])).toEqual([pruned]);
    expect(existsSync(join(root, 'case-1'))).toBe(false);
    expect(await copies.sweep([storeDir(2)])).toEqual([]);
    expect(await copies.sweep([storeDir(2)])).toEqual([superseded]);
    expect(existsSync(superseded)).toBe(false);
    expect(readFileSync(join(current, 'source', 'file-0.txt'), 'utf8')).toBe('case 2 file 0');
    expect(existsSync(staging)).toBe(true);
    // A swept copy the index names again is fetched again.
    expect(readFileSync(join(await copies.local(storeDir(0)), 'source', 'file-1.txt'), 'utf8')).toBe('case 0 file 1');
  }, 60_000);
});

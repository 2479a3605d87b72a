import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob/blob-store.js';
import { blobKey, isBlobKey } from '../../src/blob/blob-store.js';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';

let s3: TestS3Server;
const roots: string[] = [];
let stores = 0;

beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => {
  await s3?.close();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A fresh, empty store of the driver: its own folder, or its own prefix of the bucket. */
function freshStore(driver: 'fs' | 's3'): { store: BlobStore; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'evb-blob-'));
  roots.push(root);
  stores += 1;
  const env = { DATA_DIR: root, ...(driver === 's3' ? s3.env(`contract-${stores}`) : {}) };
  return { store: openBlobStore(loadConfig(env)), root };
}

const bytes = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => i % 251));

describe.each(['fs', 's3'] as const)('the %s blob driver', (driver) => {
  it('puts, reads, opens and lists what it wrote, and answers null for a missing key', async () => {
    const { store } = freshStore(driver);
    await store.put('area/one/a.json', '{"a":1}');
    await store.put('area/one/b.bin', bytes(3000));
    await store.put('area/two/c.txt', 'c');
    expect((await store.read('area/one/a.json'))?.toString()).toBe('{"a":1}');
    expect(await store.read('area/one/b.bin')).toEqual(bytes(3000));
    const opened = await store.open('area/one/b.bin');
    expect(opened?.size).toBe(3000);
    const streamed: Buffer[] = [];
    for await (const chunk of opened!.body) streamed.push(chunk as Buffer);
    expect(Buffer.concat(streamed)).toEqual(bytes(3000));
    expect(await store.exists('area/two/c.txt')).toBe(true);
    expect(await store.list('area/one')).toEqual(['area/one/a.json', 'area/one/b.bin']);
    expect(await store.list('area')).toEqual(['area/one/a.json', 'area/one/b.bin', 'area/two/c.txt']);
    expect(await store.read('area/one/missing')).toBeNull();
    expect(await store.open('area/missing/x')).toBeNull();
    expect(await store.exists('area/one')).toBe(false); // a folder is not a blob
    expect(await store.list('nothing')).toEqual([]);
    store.close();
  });

  it('streams a staged body in, shows it only once committed, and drops a discarded one', async () => {
    const { store } = freshStore(driver);
    const big = bytes(6 * 1024 * 1024 + 17); // over one multipart part on s3
    const staged = await store.stage('media/run-1/big.bin', Readable.from([big.subarray(0, 1000), big.subarray(1000)]));
    expect(await store.exists('media/run-1/big.bin')).toBe(false);
    await staged.commit();
    const opened = await store.open('media/run-1/big.bin');
    expect(opened?.size).toBe(big.length);
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(big)).toBe(true);

    const dropped = await store.stage('media/run-1/dropped.bin', Readable.from([Buffer.from('x')]));
    await dropped.discard();
    expect(await store.exists('media/run-1/dropped.bin')).toBe(false);
    expect(await store.list('media')).toEqual(['media/run-1/big.bin']);
    store.close();
  });

  it('leaves nothing behind when the staged body fails mid-way', async () => {
    const { store } = freshStore(driver);
    async function* failing() {
      yield Buffer.from('half');
      throw new Error('the client went away');
    }
    await expect(store.stage('media/run-2/half.bin', Readable.from(failing()))).rejects.toThrow('the client went away');
    expect(await store.list('media')).toEqual([]);
    store.close();
  });

  it('swaps a pointer: a read after the put sees the new value', async () => {
    const { store } = freshStore(driver);
    await store.put('snapshot/current', 'version-a');
    expect((await store.read('snapshot/current'))?.toString()).toBe('version-a');
    await store.put('snapshot/current', 'version-b');
    expect((await store.read('snapshot/current'))?.toString()).toBe('version-b');
    store.close();
  });

  it('copies a blob whole to another key', async () => {
    const { store } = freshStore(driver);
    await store.put('media/run-1/a.png', bytes(100));
    await store.copy('media/run-1/a.png', 'snapshot/v1/media/run-1/a.png');
    expect(await store.read('snapshot/v1/media/run-1/a.png')).toEqual(bytes(100));
    store.close();
  });

  it('removes a prefix and everything under it, and nothing beside it', async () => {
    const { store } = freshStore(driver);
    await store.put('media/run-1/a.png', 'a');
    await store.put('media/run-1/deep/b.png', 'b');
    await store.put('media/run-10/c.png', 'c');
    await store.remove('media/run-1');
    expect(await store.list('media')).toEqual(['media/run-10/c.png']);
    store.close();
  });

  it('names the folders directly under a prefix, not the files beside them or below them', async () => {
    const { store } = freshStore(driver);
    await store.put('snapshot/versions/v1/runs.json', '1');
    await store.put('snapshot/versions/v1/runs/a.json', 'a');
    await store.put('snapshot/versions/v2/media/b/showcase/c.png', 'c');
    // s3rver (not S3) leaves out a folder that holds only folders; a snapshot version always has runs.json.
    await store.put('snapshot/versions/v2/runs.json', '2');
    await store.put('snapshot/versions/loose.txt', 'not a folder');
    await store.put('snapshot/versions-beside/v9/x', 'x');
    expect(await store.folders('snapshot/versions')).toEqual(['v1', 'v2']);
    expect(await store.folders('snapshot/none')).toEqual([]);
    expect(await store.folders('../x')).toEqual([]);
    store.close();
  });

  it('refuses keys that are not plain segments, on reads and writes alike', async () => {
    const { store } = freshStore(driver);
    await store.put('area/secret.txt', 'secret');
    for (const key of ['area/../area/secret.txt', 'area/./secret.txt', '/area/secret.txt', 'area//secret.txt', 'area\\secret.txt', 'area/.secret', 'area/secret.txt\0']) {
      expect(await store.read(key), key).toBeNull();
      expect(await store.open(key), key).toBeNull();
      expect(await store.exists(key), key).toBe(false);
      await expect(store.put(key, 'x'), key).rejects.toThrow('Refusing blob key');
    }
    store.close();
  });
});

// S3 makes a PUT atomic itself; s3rver, which rewrites its file in place, does not, so the
// concurrent half of the pointer contract is checked on the driver that implements it.
describe('the fs blob driver', () => {
  it('swaps a pointer whole: every concurrent read sees the old value or the new one', async () => {
    const { store } = freshStore('fs');
    await store.put('snapshot/current', 'version-a');
    const reads = Array.from({ length: 20 }, () => store.read('snapshot/current'));
    await store.put('snapshot/current', 'version-b');
    for (const read of await Promise.all(reads)) expect(['version-a', 'version-b']).toContain(read?.toString());
  });

  it('keeps the layout under DATA_DIR and refuses links out of a key\'s area', async () => {
    const { store, root } = freshStore('fs');
    await store.put('run-media/run-1/showcase/a.png', 'png');
    expect(readdirSync(join(root, 'run-media', 'run-1', 'showcase'))).toEqual(['a.png']);

    const outside = mkdtempSync(join(tmpdir(), 'evb-outside-'));
    roots.push(outside);
    writeFileSync(join(outside, 'secret.png'), 'not yours');
    mkdirSync(join(root, 'run-media', 'run-2'), { recursive: true });
    symlinkSync(outside, join(root, 'run-media', 'run-2', 'showcase'));
    symlinkSync(join(outside, 'secret.png'), join(root, 'run-media', 'run-1', 'showcase', 'planted.png'));
    expect(await store.read('run-media/run-2/showcase/secret.png')).toBeNull();
    expect(await store.read('run-media/run-1/showcase/planted.png')).toBeNull();
    await expect(store.put('run-media/run-2/showcase/new.png', 'x')).rejects.toThrow('link out of the file store');
    expect(readdirSync(outside)).toEqual(['secret.png']);
  });
});

describe('blob keys', () => {
  it('are plain segments joined by slashes', () => {
    expect(isBlobKey('run-media/run-1/showcase/a.png')).toBe(true);
    expect(isBlobKey('a'.repeat(256))).toBe(false);
    expect(() => blobKey('run-media', '..', 'x')).toThrow('Refusing blob key');
  });
});

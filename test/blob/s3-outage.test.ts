import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob/blob-store.js';
import { openBlobStore } from '../../src/blob/open-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { HttpError } from '../../src/errors.js';
import { startTestS3, type TestS3Server } from '../helpers/s3-server.js';

/** Well within a client's patience (ms): the SDK's attempts and timeouts are bounded. */
const FAST = 8000;

let s3: TestS3Server;
let store: BlobStore;
let dataDir: string;

beforeAll(async () => {
  s3 = await startTestS3();
  dataDir = mkdtempSync(join(tmpdir(), 'evb-blob-outage-'));
  store = openBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3.env('outage') }));
  await store.put('area/kept.txt', 'kept');
});
afterAll(async () => {
  store?.close();
  await s3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the s3 driver with the bucket out of reach', () => {
  it('fails every call fast with 503 blob_store_unavailable, and answers again once the bucket is back', async () => {
    await s3.stop();
    try {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['put', () => store.put('area/new.txt', 'x')],
        ['stage', () => store.stage('area/new.txt', Readable.from([Buffer.from('x')]))],
        ['read', () => store.read('area/kept.txt')],
        ['open', () => store.open('area/kept.txt')],
        ['exists', () => store.exists('area/kept.txt')],
        ['list', () => store.list('area')],
        ['copy', () => store.copy('area/kept.txt', 'area/copy.txt')],
        ['remove', () => store.remove('area/kept.txt')],
      ];
      for (const [name, call] of calls) {
        const began = Date.now();
        const error = await call().then(() => null, (caught: unknown) => caught);
        expect(Date.now() - began, name).toBeLessThan(FAST);
        expect(error, name).toBeInstanceOf(HttpError);
        expect((error as HttpError).code, name).toBe('blob_store_unavailable');
        expect((error as HttpError).statusCode, name).toBe(503);
      }
    } finally {
      await s3.start();
    }
    expect((await store.read('area/kept.txt'))?.toString()).toBe('kept');
  }, 60_000);
});

describe('the s3 driver with a bucket that takes connections and never answers', () => {
  it('gives up on a request within its deadline with 503 blob_store_unavailable', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const hung = openBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3.env('hung'), AWS_ENDPOINT_URL: endpoint }));
    try {
      for (const [name, call] of [['open', () => hung.open('area/a')], ['list', () => hung.list('area')]] as const) {
        const began = Date.now();
        const error = await call().then(() => null, (caught: unknown) => caught);
        expect(Date.now() - began, name).toBeLessThan(FAST);
        expect((error as HttpError).code, name).toBe('blob_store_unavailable');
      }
    } finally {
      hung.close();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 60_000);
});

describe('the s3 driver classifying the bucket\'s errors by origin', () => {
  it('reports any error the bucket answers (a refusal such as 403 AccessDenied) as blob_store_unavailable, and a missing key as absent', async () => {
    const refusing = createHttpServer((request, response) => {
      request.resume();
      const missing = request.url?.includes('missing');
      response.writeHead(missing ? 404 : 403, { 'content-type': 'application/xml' });
      response.end(missing
        ? '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>gone</Message></Error>'
        : '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
    });
    await new Promise<void>((done) => refusing.listen(0, '127.0.0.1', done));
    const endpoint = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const denied = openBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3.env('denied'), AWS_ENDPOINT_URL: endpoint }));
    try {
      for (const [name, call] of [['read', () => denied.read('area/a')], ['open', () => denied.open('area/a')], ['list', () => denied.list('area')]] as const) {
        const error = await call().then(() => null, (caught: unknown) => caught);
        expect((error as HttpError).code, name).toBe('blob_store_unavailable');
      }
      expect(await denied.read('area/missing')).toBeNull();
      expect(await denied.open('area/missing')).toBeNull();
    } finally {
      denied.close();
      refusing.close();
    }
  }, 60_000);
});

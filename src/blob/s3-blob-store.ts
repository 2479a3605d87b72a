import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand,
  S3Client, S3ServiceException, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { blobStoreUnavailable, HttpError } from '../errors.js';
import { SECOND } from '../time.js';
import { isBlobKey, TEMPORARY_MARK, type BlobStore, type BlobStream, type StagedBlob } from './blob-store.js';

/** What the `s3` driver needs; the SDK's own defaults (environment, profiles) fill what is null. */
export interface S3BlobOptions {
  bucket: string;
  /** Key prefix inside the bucket, without slashes at either end; '' for the bucket's root. */
  prefix: string;
  /** AWS_ENDPOINT_URL: an S3-compatible server (MinIO, s3rver); addressed path-style. */
  endpoint: string | null;
  region: string;
  /** A function, so the keys never appear where the options are logged or serialized. */
  credentials: (() => { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) | null;
}

/** The sockets one client (one pool) keeps to the bucket: the SDK's own default. */
const DEFAULT_SOCKETS = 50;

/** How many sockets this client may hold to the bucket (default 50, the SDK's). */
export interface S3Pool {
  maxSockets?: number;
}

/** Connecting may take this long (ms) before the attempt counts as failed. */
const CONNECT_TIMEOUT = 2 * SECOND;
/** A request whose socket stays silent this long (ms) has failed: the bound on a hung bucket. */
const IDLE_TIMEOUT = 10 * SECOND;
/** Tries per request, the first included: an unreachable bucket answers 503 within a few seconds. */
const MAX_ATTEMPTS = 2;
/**
 * All attempts of one request, until the answer's headers (ms): a bucket that accepts
 * connections but does not answer is given up on this soon, not after every attempt's idle
 * timeout. A body being streamed is bounded by IDLE_TIMEOUT instead.
 */
const REQUEST_DEADLINE = 5 * SECOND;
/** The same for a request that sends a whole body or waits for a server-side copy (ms). */
const WRITE_DEADLINE = 60 * SECOND;
/** Multipart part size for streamed uploads (bytes; S3's minimum); two in flight bound the memory an upload holds. */
const PART_SIZE = 5 * 1024 * 1024;
/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;

/**
 * The `s3` driver: key `a/b` is the object `<prefix>/a/b` of the bucket. A request that
 * cannot reach the bucket (refused, timed out, a 5xx) throws 503 `blob_store_unavailable`;
 * the next request tries again, so the service resumes by itself once the bucket is back.
 * Single PUTs are atomic in S3, which makes a small object a safe pointer to swap.
 */
export function s3BlobStore(options: S3BlobOptions, pool: S3Pool = {}): BlobStore {
  // The SDK's default is 50 sockets per client; a pool of its own bounds what one use may hold.
  const agent = { keepAlive: true, maxSockets: pool.maxSockets ?? DEFAULT_SOCKETS };
  const config: S3ClientConfig = {
    region: options.region,
    maxAttempts: MAX_ATTEMPTS,
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT, socketTimeout: IDLE_TIMEOUT, httpAgent: agent, httpsAgent: agent },
  };
  // S3-compatible servers often predate the SDK's default checksums (and their aws-chunked
  // bodies); they get the checksums S3 requires and no more.
  if (options.endpoint) {
    Object.assign(config, { endpoint: options.endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  }
  if (options.credentials) config.credentials = async () => options.credentials!();
  const client = new S3Client(config);
  const Bucket = options.bucket;
  const location = `s3://${options.bucket}${options.prefix ? `/${options.prefix}` : ''}`;
  const objectKey = (key: string) => (options.prefix ? `${options.prefix}/${key}` : key);
  // A missing key passes through as it is: `orMissing` makes it null, other callers see the SDK's NoSuchKey.
  const unavailable = (error: unknown) => (!isMissing(error) && isUnreachable(error) ? blobStoreUnavailable(location, error) : error);
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw unavailable(error);
    }
  };
  /**
   * One request, all its attempts within `deadlineMs` until the answer arrives; the deadline
   * is lifted then, so it never cuts a body being streamed (IDLE_TIMEOUT bounds that).
   */
  const send = <T>(request: (options: { abortSignal: AbortSignal }) => Promise<T>, deadlineMs = REQUEST_DEADLINE): Promise<T> =>
    call(async () => {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), deadlineMs);
      try {
        return await request({ abortSignal: deadline.signal });
      } finally {
        clearTimeout(timer);
      }
    });
  /** `send`, answering null when the bucket says there is no such object. */
  const orMissing = <T>(request: (options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T | null> =>
    send(request).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
  const refuse = (key: string) => new Error(`Refusing blob key ${JSON.stringify(key.slice(0, 200))}.`);

  const copyObject = (from: string, to: string) =>
    send((options) => client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource: `${Bucket}/${from.split('/').map(encodeURIComponent).join('/')}` }), options), WRITE_DEADLINE);

  async function listKeys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await send((options) => client.send(new ListObjectsV2Command({ Bucket, Prefix: `${objectKey(prefix)}/`, ContinuationToken }), options));
      for (const object of page.Contents ?? []) {
        const key = object.Key!.slice(options.prefix ? options.prefix.length + 1 : 0);
        if (isBlobKey(key)) keys.push(key);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys.sort();
  }

  async function listFolders(prefix: string): Promise<string[]> {
    const names: string[] = [];
    const under = `${objectKey(prefix)}/`;
    let ContinuationToken: string | undefined;
    do {
      const page = await send((options) => client.send(new ListObjectsV2Command({ Bucket, Prefix: under, Delimiter: '/', ContinuationToken }), options));
      for (const common of page.CommonPrefixes ?? []) {
        const name = common.Prefix!.slice(under.length, -1);
        if (isBlobKey(`${prefix}/${name}`)) names.push(name);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return names.sort();
  }

  return {
    driver: 's3',
    location,
    async put(key, body) {
      if (!isBlobKey(key)) throw refuse(key);
      await send((options) => client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: body }), options), WRITE_DEADLINE);
    },
    async stage(key, body: Readable): Promise<StagedBlob> {
      if (!isBlobKey(key) || !key.includes('/')) throw refuse(key);
      // Beside the key's area, under a name no key can have, so a listing never shows it.
      const temp = objectKey(`${key.split('/')[0]}/${TEMPORARY_MARK}${randomUUID()}`);
      const upload = new Upload({ client, params: { Bucket, Key: temp, Body: body }, partSize: PART_SIZE, queueSize: 2, leavePartsOnError: false });
      await call(() => upload.done());
      const drop = () => send((options) => client.send(new DeleteObjectCommand({ Bucket, Key: temp }), options)).then(() => undefined);
      return {
        async commit() {
          // A server-side copy: the bytes never come back through this process.
          await copyObject(temp, objectKey(key));
          await drop();
        },
        discard: drop,
      };
    },
    async read(key) {
      if (!isBlobKey(key)) return null;
      const object = await orMissing((options) => client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }), options));
      return object ? call(async () => Buffer.from(await object.Body!.transformToByteArray())) : null;
    },
    async open(key): Promise<BlobStream | null> {
      if (!isBlobKey(key)) return null;
      const object = await orMissing((options) => client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }), options));
      return object ? { body: object.Body as Readable, size: object.ContentLength ?? 0 } : null;
    },
    async stat(key) {
      if (!isBlobKey(key)) return null;
      const head = await orMissing((options) => client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }), options));
      return head ? { size: head.ContentLength ?? 0 } : null;
    },
    async exists(key) {
      if (!isBlobKey(key)) return false;
      return (await orMissing((options) => client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }), options))) !== null;
    },
    list: (prefix) => (isBlobKey(prefix) ? listKeys(prefix) : Promise.resolve([])),
    folders: (prefix) => (isBlobKey(prefix) ? listFolders(prefix) : Promise.resolve([])),
    async copy(from, to) {
      if (!isBlobKey(from) || !isBlobKey(to)) throw refuse(isBlobKey(from) ? to : from);
      await copyObject(objectKey(from), objectKey(to));
    },
    async remove(prefix) {
      if (!isBlobKey(prefix) || !prefix.includes('/')) throw refuse(prefix);
      const keys = [prefix, ...(await listKeys(prefix))];
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const Objects = keys.slice(i, i + DELETE_BATCH).map((key) => ({ Key: objectKey(key) }));
        await send((options) => client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }), options));
      }
    },
    close: () => client.destroy(),
  };
}

function isMissing(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as { name?: string }).name;
  // A bucket that is gone (or misnamed) is an outage of the store, not a missing key.
  if (name === 'NoSuchBucket') return false;
  return status === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/**
 * Classified by origin: anything the S3 SDK raises (an error the bucket answered, 403 and
 * 5xx alike, or a response it could not read) and any network failure on the way means the
 * bucket cannot serve us now, worth a retry later; only a missing key (see `isMissing`,
 * checked first) is an answer about the data. Our own errors (a refused key) are neither.
 */
function isUnreachable(error: unknown): boolean {
  if (error instanceof HttpError) return false;
  if (error instanceof S3ServiceException) return true;
  const code = (error as { code?: string }).code;
  const name = (error as { name?: string }).name;
  return (
    name === 'TimeoutError' || name === 'RequestTimeout' || name === 'AbortError' ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'].includes(code ?? '') ||
    // The SDK reports a response it could not read (a server gone mid-answer) with metadata and no status.
    (error as { $metadata?: unknown }).$metadata !== undefined
  );
}

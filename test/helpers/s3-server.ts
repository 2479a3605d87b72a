import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export const TEST_BUCKET = 'eval-test';

export interface TestS3Server {
  /** `http://127.0.0.1:<port>`, what AWS_ENDPOINT_URL takes. */
  endpoint: string;
  /** The environment the `s3` driver reads, for a bucket prefix of the caller's choice. */
  env(prefix: string): Record<string, string>;
  /** Stops listening; the objects stay for `start`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Stops and deletes the objects. */
  close(): Promise<void>;
}

/** The environment the `s3` driver reads, for the test bucket of the server at `endpoint`, under `prefix`. */
export const s3Environment = (endpoint: string, prefix: string): Record<string, string> => ({
  BLOB_STORE_URL: `s3://${TEST_BUCKET}/${prefix}`,
  AWS_ENDPOINT_URL: endpoint,
  AWS_REGION: 'us-east-1',
  // s3rver's fixed development keys.
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
});

/**
 * A local S3-compatible server (s3rver) on loopback for the calling test file, with one
 * bucket, its objects in a temporary folder. Stop and start it to play an outage.
 */
export async function startTestS3(): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'evb-s3-'));
  let port = 0;
  let server: S3rver | null = null;
  const start = async () => {
    const instance = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: TEST_BUCKET, configs: [] }] });
    port = (await instance.run()).port;
    server = instance;
  };
  const stop = async () => {
    const running = server;
    server = null;
    await running?.close();
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: (prefix) => s3Environment(endpoint, prefix),
    stop,
    start,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

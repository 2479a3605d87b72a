/**
 * A worker thread of dispatchers: `dispatchers` concurrent loops, each on its own keep-alive
 * socket, calling `POST /jobs/next` until it answers 204 (or `limit` claims in all). It runs
 * off the server's thread, as real dispatchers run in other processes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { keepAliveClient } from './keep-alive-client.js';

export interface DispatchInput {
  base: string;
  token: string;
  dispatchers: number;
  limit: number;
}

export interface DispatchOutput {
  claimed: string[];
  samplesMs: number[];
  seconds: number;
  errors: number;
}

async function run({ base, token, dispatchers, limit }: DispatchInput): Promise<DispatchOutput> {
  const claimed: string[] = [];
  const samplesMs: number[] = [];
  let errors = 0;
  const headers = { authorization: `Bearer ${token}` };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: dispatchers }, async () => {
    const client = keepAliveClient(base);
    while (claimed.length < limit) {
      const t0 = process.hrtime.bigint();
      const answer = await client.send('POST', '/jobs/next', undefined, headers);
      samplesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (answer.status === 204) break;
      if (answer.status !== 200) {
        errors += 1;
        break;
      }
      claimed.push((JSON.parse(answer.body) as { jobId: string }).jobId);
    }
    client.close();
  }));
  return { claimed, samplesMs, seconds: Number(process.hrtime.bigint() - started) / 1e9, errors };
}

if (parentPort) parentPort.postMessage(await run(workerData as DispatchInput));

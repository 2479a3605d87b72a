/**
 * A worker thread of dispatchers: `dispatchers` concurrent loops, each on its own keep-alive
 * socket, calling `POST <path>` (default `/jobs/next`) until it answers 204 (or `limit`
 * answers in all). It runs off the server's thread, as real dispatchers run in other
 * processes. Pointed at a no-op route it measures the throughput floor.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { keepAliveClient } from './keep-alive-client.js';

export interface DispatchInput {
  base: string;
  token: string;
  dispatchers: number;
  path?: string;
  limit: number;
}

export interface DispatchOutput {
  claimed: string[];
  /** Every answer, claims and no-op replies alike (the 204 that ends a loop included). */
  answered: number;
  samplesMs: number[];
  seconds: number;
  errors: number;
}

async function run({ base, token, dispatchers, limit, path = '/jobs/next' }: DispatchInput): Promise<DispatchOutput> {
  const claimed: string[] = [];
  let answered = 0;
  const samplesMs: number[] = [];
  let errors = 0;
  const headers = { authorization: `Bearer ${token}` };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: dispatchers }, async () => {
    const client = keepAliveClient(base);
    while (answered < limit) {
      answered += 1;
      const t0 = process.hrtime.bigint();
      const answer = await client.send('POST', path, undefined, headers);
      samplesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (answer.status === 204) break;
      if (answer.status !== 200) {
        errors += 1;
        break;
      }
      const { jobId } = JSON.parse(answer.body) as { jobId?: string };
      if (jobId) claimed.push(jobId);
    }
    client.close();
  }));
  return { claimed, answered, samplesMs, seconds: Number(process.hrtime.bigint() - started) / 1e9, errors };
}

if (parentPort) parentPort.postMessage(await run(workerData as DispatchInput));

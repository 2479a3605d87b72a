/**
 * A worker thread of dispatchers: `dispatchers` concurrent loops, each on its own keep-alive
 * socket, calling `POST <path>` (default `/jobs/next`) until it answers 204 (or `limit`
 * answers in all). It runs off the server's thread, as real dispatchers run in other
 * processes. Pointed at a no-op route it measures the throughput floor. The first `warmup`
 * answers, on the same sockets, are neither timed nor counted.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { keepAliveClient, type KeepAliveClient } from './keep-alive-client.js';

export interface DispatchInput {
  base: string;
  token: string;
  dispatchers: number;
  path?: string;
  limit: number;
  /** Untimed answers before the timed `limit`. */
  warmup?: number;
}

export interface DispatchOutput {
  claimed: string[];
  /** Every answer, claims and no-op replies alike (the 204 that ends a loop included). */
  answered: number;
  samplesMs: number[];
  seconds: number;
  errors: number;
}

async function run({ base, token, dispatchers, limit, warmup = 0, path = '/jobs/next' }: DispatchInput): Promise<DispatchOutput> {
  const headers = { authorization: `Bearer ${token}` };
  const clients = Array.from({ length: dispatchers }, () => keepAliveClient(base));
  if (warmup > 0) await loops(clients, path, headers, warmup);
  const started = process.hrtime.bigint();
  const output = await loops(clients, path, headers, limit);
  for (const client of clients) client.close();
  return { ...output, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** One loop per client until `limit` answers in all, or until a loop's answer is 204 or an error. */
async function loops(clients: KeepAliveClient[], path: string, headers: Record<string, string>, limit: number): Promise<Omit<DispatchOutput, 'seconds'>> {
  const claimed: string[] = [];
  let answered = 0;
  const samplesMs: number[] = [];
  let errors = 0;
  await Promise.all(clients.map(async (client) => {
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
  }));
  return { claimed, answered, samplesMs, errors };
}

if (parentPort) parentPort.postMessage(await run(workerData as DispatchInput));

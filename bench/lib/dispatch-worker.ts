/**
 * A worker thread of dispatchers: `dispatchers` concurrent loops, each on its own keep-alive
 * socket, calling `POST <path>` (default `/jobs/next`) until it answers 204 (or `limit`
 * answers in all). Given several bases, the loops are dealt over them in turn. It runs off the server's thread, as real dispatchers run in other
 * processes. Pointed at a no-op route it measures the throughput floor. The first `warmup`
 * answers, on the same sockets, are neither timed nor counted.
 *
 * With `interleave`, the same loops take turns between the main target and those, round by
 * round, so all are timed by the same warm thread at the same moments: the claims and the
 * floors they are compared with see the same load and the same drift.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { keepAliveClient, type KeepAliveClient } from './keep-alive-client.js';
import { addTicks, machineTicks, type MachineTicks } from './machine.js';

export interface DispatchInput {
  /** The server, or several servers of one deployment (loop i calls base i mod their count). */
  base: string | string[];
  token: string;
  dispatchers: number;
  path?: string;
  limit: number;
  /** Untimed answers before the timed `limit` (per target, with `interleave`). */
  warmup?: number;
  /** More targets, and how many rounds of `limit` answers each target gets, in turn. */
  interleave?: { targets: Array<{ base: string; path: string }>; rounds: number };
}

export interface DispatchRun {
  claimed: string[];
  /** Every answer, claims and no-op replies alike (the 204 that ends a loop included). */
  answered: number;
  samplesMs: number[];
  seconds: number;
  errors: number;
  /** The whole machine's CPU ticks while it ran, busy and in all; null where /proc/stat is not there. */
  machine: MachineTicks | null;
}

/** One target's turn in one round: its answers, the claims among them, and its seconds. */
export interface Turn {
  answered: number;
  claimed: number;
  seconds: number;
}

export interface DispatchOutput extends DispatchRun {
  /** Jobs claimed by the untimed warmup answers (of the main target). */
  warmupClaimed: string[];
  /** With `interleave`: the main target's turns, in order. */
  turns?: Turn[];
  /** With `interleave`: per target, its answers over all rounds, and its turns. */
  interleaved?: Array<DispatchRun & { turns: Turn[] }>;
}

async function run({ base, token, dispatchers, limit, warmup = 0, path = '/jobs/next', interleave }: DispatchInput): Promise<DispatchOutput> {
  const headers = { authorization: `Bearer ${token}` };
  const bases = [base].flat();
  const clients = Array.from({ length: dispatchers }, (_, i) => keepAliveClient(bases[i % bases.length]!));
  const others = (interleave?.targets ?? []).map((target) => ({
    path: target.path,
    clients: Array.from({ length: dispatchers }, () => keepAliveClient(target.base)),
  }));
  try {
    const warmupClaimed = warmup > 0 ? (await loops(clients, path, headers, warmup)).claimed : [];
    if (!interleave) return { ...(await timed(() => loops(clients, path, headers, limit))), warmupClaimed };
    for (const other of others) await loops(other.clients, other.path, headers, warmup);
    const targets = [{ path, clients }, ...others].map((target) => ({ ...target, total: { ...empty(), turns: [] as Turn[] } }));
    for (let round = 0; round < interleave.rounds; round += 1) {
      // The order turns each round, so no target always follows the same one.
      for (let i = 0; i < targets.length; i += 1) {
        const target = targets[(round + i) % targets.length]!;
        const run = await timed(() => loops(target.clients, target.path, headers, limit));
        add(target.total, run);
        target.total.turns.push({ answered: run.answered, claimed: run.claimed.length, seconds: run.seconds });
      }
    }
    const [main, ...rest] = targets.map((target) => target.total);
    return { ...main!, warmupClaimed, interleaved: rest };
  } finally {
    for (const client of [...clients, ...others.flatMap((other) => other.clients)]) client.close();
  }
}

const empty = (): DispatchRun => ({ claimed: [], answered: 0, samplesMs: [], seconds: 0, errors: 0, machine: null });

function add(into: DispatchRun, run: DispatchRun): void {
  into.claimed.push(...run.claimed);
  into.answered += run.answered;
  into.samplesMs.push(...run.samplesMs);
  into.seconds += run.seconds;
  into.errors += run.errors;
  if (run.machine) into.machine = into.machine ? addTicks(into.machine, run.machine) : run.machine;
}

async function timed(work: () => Promise<Omit<DispatchRun, 'seconds' | 'machine'>>): Promise<DispatchRun> {
  const ticks = machineTicks();
  const started = process.hrtime.bigint();
  const output = await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = machineTicks();
  return { ...output, seconds, machine: ticks && after && addTicks(after, ticks, -1) };
}

/** One loop per client until `limit` answers in all, or until a loop's answer is 204 or an error. */
async function loops(clients: KeepAliveClient[], path: string, headers: Record<string, string>, limit: number): Promise<Omit<DispatchRun, 'seconds' | 'machine'>> {
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

import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createClassifyPool } from '../src/probes/classify-pool.js';
import { classifyReply } from '../src/probes/classify-reply.js';
import { machineLine } from './lib/machine.js';
import { recordedReplies } from './lib/recorded-replies.js';
import { printTable } from './lib/stats.js';

const REPLIES = 100_000;
const BATCH = 500;

/**
 * Classification of 100,000 recorded probe replies: the pure function on the main thread
 * (the baseline), then the Piscina pool in batches over every core, and one task per reply
 * as a probe submits them. Prints throughput and the ratio to the baseline.
 */
export default async function benchProbeClassify(): Promise<void> {
  const items = recordedReplies(REPLIES);
  const labels = new Map<string, number>();

  const mainStart = performance.now();
  for (const { reply, check } of items) {
    const label = classifyReply(reply, check).label ?? 'void';
    labels.set(label, (labels.get(label) ?? 0) + 1);
  }
  const mainMs = performance.now() - mainStart;

  const threads = availableParallelism();
  const pool = createClassifyPool({ threads });
  try {
    await pool.classifyMany(items.slice(0, BATCH)); // threads up and warm
    const batchedStart = performance.now();
    const batches = [];
    for (let i = 0; i < items.length; i += BATCH) batches.push(pool.classifyMany(items.slice(i, i + BATCH)));
    const batched = (await Promise.all(batches)).flat();
    const batchedMs = performance.now() - batchedStart;
    if (batched.length !== REPLIES) throw new Error(`pool classified ${batched.length} of ${REPLIES}`);

    const single = items.slice(0, 20_000);
    const singleStart = performance.now();
    await Promise.all(single.map(({ reply, check }) => pool.classify(reply, check)));
    const singleMs = performance.now() - singleStart;

    const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en-US')}/s`;
    console.log(`labels: ${[...labels.entries()].map(([label, n]) => `${label} ${n}`).join(', ')}`);
    printTable(`Probe reply classification, ${REPLIES} recorded replies (${machineLine()})`, [
      { measure: 'main thread (baseline)', replies: REPLIES, time: `${mainMs.toFixed(0)} ms`, throughput: rate(REPLIES, mainMs), 'vs baseline': '1.00' },
      { measure: `pool, ${threads} threads, batches of ${BATCH}`, replies: REPLIES, time: `${batchedMs.toFixed(0)} ms`, throughput: rate(REPLIES, batchedMs), 'vs baseline': (mainMs / REPLIES / (batchedMs / REPLIES)).toFixed(2) },
      { measure: `pool, ${threads} threads, one task per reply`, replies: single.length, time: `${singleMs.toFixed(0)} ms`, throughput: rate(single.length, singleMs), 'vs baseline': ((mainMs / REPLIES) / (singleMs / single.length)).toFixed(2) },
    ]);
  } finally {
    await pool.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchProbeClassify();

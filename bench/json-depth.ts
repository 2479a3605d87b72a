/**
 * `npm run bench -- json-depth`: what the JSON body parser's nesting check costs. Each body
 * is parsed with JSON.parse alone (the baseline, measured in the same run) and with the
 * depth scan first, as src/http/json-body.ts does; the ratio is the overhead.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/http/json-depth.js';
import { machineLine } from './lib/machine.js';
import { printTable } from './lib/stats.js';

/** A relayed-events batch of about `bytes`: tool calls with nested arguments and long text, as drivers send. */
function eventsBody(bytes: number): string {
  const events: unknown[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const event = {
      kind: 'tool-call', seq: i, at: new Date(1_700_000_000_000 + i).toISOString(),
      input: { path: `src/file-${i}.ts`, edits: [{ range: { start: { line: i, column: 0 }, end: { line: i + 3, column: 8 } }, text: 'x'.repeat(200) }] },
      output: `line "quoted" \\ escaped ${'y'.repeat(300)}`,
    };
    events.push(event);
    size += JSON.stringify(event).length + 1;
  }
  return JSON.stringify(events);
}

function timePerCall(iterations: number, call: () => void): number {
  for (let i = 0; i < Math.min(iterations, 5); i++) call();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) call();
  return Number(process.hrtime.bigint() - start) / 1e6 / iterations;
}

export default async function benchJsonDepth(): Promise<void> {
  const rows = [];
  for (const [label, bytes, iterations] of [['64 KiB', 64 * 1024, 400], ['1 MiB', 1024 * 1024, 40], ['8 MiB', 8 * 1024 * 1024, 6]] as const) {
    const body = eventsBody(bytes);
    const parseOnly = timePerCall(iterations, () => JSON.parse(body));
    const scanThenParse = timePerCall(iterations, () => {
      if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw new Error('unexpected');
      JSON.parse(body);
    });
    rows.push({ body: label, 'JSON.parse': `${parseOnly.toFixed(2)} ms`, 'scan + parse': `${scanThenParse.toFixed(2)} ms`, ratio: (scanThenParse / parseOnly).toFixed(2) });
  }
  printTable(`JSON body depth check (${machineLine()})`, rows);
}

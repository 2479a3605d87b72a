import { setTimeout as sleep } from 'node:timers/promises';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { EXIT, type CliIo } from './cli-io.js';
import { callService, serviceUrl } from './service-client.js';

export interface WatchOptions {
  url: string;
  /** Also subscribe to the `runs` topic and print every in-flight transition. */
  runs?: boolean;
  /** Reopen a stream that sent nothing for this long (ms; default 45 s, three missed 15 s heartbeats). */
  quietMs?: number;
  /** First reconnect delay, doubled per failure up to `maxBackoffMs` (ms; default 1 s and 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

interface ActiveJob {
  runId: string;
  state: string;
  testCaseSlug: string;
  testCaseVersion: string;
  variant: string;
  harnessSlug: string;
  modelId: string;
}

/** Lines of the active list printed after a (re)connect or resync; the rest is counted. */
const ACTIVE_LINES = 20;

/**
 * `eval-backend watch`: follows `GET /notifications` as a console does. On every `stream`
 * frame it re-applies its topics and re-reads `GET /jobs/active`; on `resync` it re-reads
 * the list; a stream that goes quiet past three heartbeats, or drops, is reopened with
 * backoff. Runs until interrupted.
 */
export async function watchCommand(options: WatchOptions, io: CliIo): Promise<number> {
  const base = serviceUrl(options.url);
  const firstBackoff = options.backoffMs ?? 1000;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  let backoff = firstBackoff;
  while (!io.signal.aborted) {
    const outcome = await followOnce(base, options, io);
    if (io.signal.aborted) break;
    if (outcome.connected) backoff = firstBackoff;
    io.stderr.write(`${stamp()} ${outcome.reason}; reconnecting in ${Math.round(backoff / 100) / 10} s\n`);
    await sleep(backoff, undefined, { signal: io.signal }).catch(() => undefined);
    backoff = Math.min(backoff * 2, maxBackoff);
  }
  return EXIT.ok;
}

async function followOnce(base: URL, options: WatchOptions, io: CliIo): Promise<{ connected: boolean; reason: string }> {
  const controller = new AbortController();
  const signal = AbortSignal.any([io.signal, controller.signal]);
  let connected = false;
  let reason = 'the stream ended';
  const quietMs = options.quietMs ?? 45_000;
  let watchdog: NodeJS.Timeout | undefined;
  const rearm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      reason = `no frame for ${Math.round(quietMs / 1000)} s`;
      controller.abort();
    }, quietMs);
  };
  // Frames are handled one after another, so what a frame triggers (a topic change, a
  // re-read of the active list) prints before the frames that followed it.
  let handling: Promise<void> = Promise.resolve();
  const parser = createParser({
    onComment: rearm,
    onEvent(frame) {
      rearm();
      handling = handling.then(() => handleFrame(frame)).catch((error: unknown) => {
        io.stderr.write(`${stamp()} ${error instanceof Error ? error.message : String(error)}\n`);
      });
    },
  });

  const handleFrame = async (frame: EventSourceMessage) => {
    const data = frame.data === '' ? null : (JSON.parse(frame.data) as Record<string, unknown>);
    switch (frame.event) {
      case 'stream': {
        const streamId = String(data?.streamId);
        if (options.runs) {
          await callService(base, `/notifications/${encodeURIComponent(streamId)}/topics`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ runs: true }),
            signal,
          });
        }
        io.stdout.write(`${stamp()} connected (stream ${streamId}${options.runs ? ', runs on' : ''})\n`);
        await printActive(base, io, signal);
        return;
      }
      case 'resync':
        io.stdout.write(`${stamp()} resync: ${Number(data?.dropped ?? 0)} frames dropped; re-reading the active list\n`);
        await printActive(base, io, signal);
        return;
      case 'notification':
        io.stdout.write(`${stamp()} ${notificationLine(data ?? {})}\n`);
        return;
      case 'run':
        io.stdout.write(`${stamp()} ${runLine(data ?? {})}\n`);
        return;
      default:
        // heartbeat, or a frame a newer service added
        return;
    }
  };

  try {
    rearm();
    const response = await callService(base, '/notifications', { headers: { accept: 'text/event-stream' }, signal, timeoutMs: 24 * 60 * 60 * 1000 });
    connected = true;
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    if (!controller.signal.aborted && !io.signal.aborted) reason = error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(watchdog);
    controller.abort();
    await handling;
  }
  return { connected, reason };
}

async function printActive(base: URL, io: CliIo, signal: AbortSignal) {
  const { jobs } = (await (await callService(base, '/jobs/active', { signal })).json()) as { jobs: ActiveJob[] };
  io.stdout.write(`${stamp()} ${jobs.length} job${jobs.length === 1 ? '' : 's'} in flight\n`);
  for (const job of jobs.slice(0, ACTIVE_LINES)) {
    io.stdout.write(`  ${job.state.padEnd(10)} ${job.runId} ${subject(job)}\n`);
  }
  if (jobs.length > ACTIVE_LINES) io.stdout.write(`  … and ${jobs.length - ACTIVE_LINES} more\n`);
}

function notificationLine(data: Record<string, unknown>): string {
  const what = `${String(data.kind)} ${subject(data)}`;
  if (data.kind === 'publish-failed') return `${what}: ${String(data.message ?? 'publish failed')}`;
  const record = data.recordId ? ` (record ${String(data.recordId)})` : '';
  const message = data.message ? `: ${String(data.message)}` : '';
  return `${what} -> ${String(data.outcome)}${record}${message}`;
}

function runLine(data: Record<string, unknown>): string {
  const detail = data.detail ? ` (${String(data.detail)})` : '';
  const record = data.recordId ? ` record ${String(data.recordId)}` : '';
  return `run ${String(data.kind).padEnd(13)} ${String(data.state).padEnd(10)} ${String(data.runId)} ${subject(data)}${record}${detail}`;
}

function subject(data: Record<string, unknown> | ActiveJob): string {
  const d = data as Record<string, unknown>;
  return `${String(d.testCaseSlug)}@${String(d.testCaseVersion)}/${String(d.variant)} ${String(d.harnessSlug)} ${String(d.modelId)}`;
}

const stamp = () => new Date().toISOString().slice(11, 19);

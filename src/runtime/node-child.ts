import { fork } from 'node:child_process';
import { SECOND } from '../time.js';
import { forkDyingWithParent } from './dies-with-parent.js';
import type { RunningChild } from './supervised-child.js';

export interface NodeChildOptions {
  /** For messages: "the auth service", "the API". */
  label: string;
  env: NodeJS.ProcessEnv;
  /**
   * How long it may go without saying it serves, or that its start made progress (ms,
   * default 30 s): a long start that keeps reporting (see `announceProgress`) is waited for,
   * a silent one is killed.
   */
  readyTimeoutMs?: number;
  /** How long a stop waits after SIGTERM before SIGKILL (ms, default 15 s). */
  stopGraceMs?: number;
  /**
   * A signal the kernel sends the child when this process dies (see `forkDyingWithParent`).
   * Without one, the child notices through its IPC channel (`exitWithParent`), which a
   * stopped (SIGSTOP) child cannot.
   */
  parentDeathSignal?: 'TERM' | 'KILL';
}

/** What a child entry point sends its parent once it serves (see `announceReady`). */
interface ReadyMessage {
  ready: true;
  url: string;
}

/** What a child entry point sends while a long start goes on (see `announceProgress`). */
interface ProgressMessage {
  progress: string;
}

/**
 * Forks a Node entry point with an IPC channel and resolves once it reports that it serves.
 * The channel is also how the child notices its parent is gone (`exitWithParent`).
 *
 * The child leads a process group of its own, so a terminal's Ctrl-C (SIGINT to the whole
 * foreground group) reaches only its parent, which stops it in order with one SIGTERM; a
 * SIGINT of its own followed by that SIGTERM would read as a second Ctrl-C and skip the drain.
 */
export async function startNodeChild(entry: string, options: NodeChildOptions): Promise<RunningChild & { url: string }> {
  const dying = options.parentDeathSignal ? forkDyingWithParent(options.parentDeathSignal) : {};
  const child = fork(entry, [], { env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true, ...dying });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const timeoutMs = options.readyTimeoutMs ?? 30 * SECOND;
  let timer: NodeJS.Timeout | undefined;
  try {
    const url = await Promise.race([
      new Promise<string>((done, fail) => {
        let progress: string | null = null;
        const arm = () => {
          clearTimeout(timer);
          const silence = `${options.label} did not start within ${timeoutMs / SECOND} s`;
          timer = setTimeout(() => fail(new Error(progress ? `${silence} of its last progress (${progress})` : silence)), timeoutMs);
        };
        arm();
        child.on('message', (message: Partial<ReadyMessage & ProgressMessage>) => {
          if (message.ready) done(message.url ?? '');
          else if (typeof message.progress === 'string') {
            progress = message.progress;
            arm();
          }
        });
      }),
      exited.then(({ code, signal }) => {
        throw new Error(`${options.label} exited (${signal ?? `code ${code}`}) before it served`);
      }),
    ]);
    return { url, pid: child.pid!, exited, stop: () => stopForked(child, exited, options.stopGraceMs ?? 15 * SECOND) };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function stopForked(child: ReturnType<typeof fork>, exited: Promise<unknown>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Sends `message` to the parent while it is there. A parent that stops while this child is
 * still starting closes the channel under a send; unanswered, that write's EPIPE ended the
 * child with a fatal error, where `exitWithParent` stops it cleanly.
 */
function tellParent(message: ReadyMessage | ProgressMessage): void {
  if (!process.send || !process.connected) return;
  process.send(message, undefined, undefined, () => {
    // Sent, or the parent is gone: either way there is nothing to do here.
  });
}

/** For a child entry point: tells the parent it serves (no-op when started without one). */
export function announceReady(url: string): void {
  tellParent({ ready: true, url });
}

/** Progress is sent at most this often (ms); the parent only needs to hear it within its timeout. */
const PROGRESS_EVERY_MS = SECOND;
let progressSentAt = 0;

/**
 * For a child entry point: tells the parent its start is still making progress (for the
 * parent's log of a start that times out), so a long start (a boot reconciling a million
 * queued jobs) is not taken for a hung one. At most once a second; no-op without a parent.
 */
export function announceProgress(what: string): void {
  if (Date.now() - progressSentAt < PROGRESS_EVERY_MS) return;
  progressSentAt = Date.now();
  tellParent({ progress: what });
}

/**
 * For a child entry point: runs `shutdown` when the parent's IPC channel closes, which the
 * kernel does when the parent dies, even by SIGKILL; at once when it closed before this was
 * called (a child that asked late outlived its parent). No-op without a channel.
 */
export function exitWithParent(shutdown: (reason: string) => void): void {
  if (!process.send) return;
  const gone = 'its parent process is gone';
  if (!process.connected) queueMicrotask(() => shutdown(gone));
  else process.on('disconnect', () => shutdown(gone));
}

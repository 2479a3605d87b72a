import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';

/**
 * How a render pool has its worker threads close their browsers before it terminates them.
 * Terminating a thread with a live browser lets Puppeteer kill Chromium but nobody reap it,
 * and leaves its profile folder behind. Created by the pool, handed to the threads in
 * `workerData`.
 */
export interface ShutdownLine {
  channelName: string;
  /** Element 0: threads that own a renderer and have not closed it yet. Shared memory. */
  openRenderers: Int32Array;
}

type ShutdownMessage = { type: 'close' } | { type: 'closed' };

export function createShutdownLine(): ShutdownLine {
  return {
    channelName: `render-pool-shutdown-${randomUUID()}`,
    openRenderers: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
  };
}

/**
 * Worker side: runs `close` when the pool shuts down. Call once per thread, before the
 * renderer can start a browser: the pool only waits for threads counted here.
 */
export function closeOnShutdown(line: ShutdownLine, close: () => Promise<void>): void {
  const channel = new BroadcastChannel(line.channelName);
  // Counted only once listening, so every thread the pool counts hears the request.
  Atomics.add(line.openRenderers, 0, 1);
  channel.onmessage = (event) => {
    if ((event.data as ShutdownMessage).type !== 'close') return;
    void close()
      .catch((error: unknown) => process.emitWarning(error as Error))
      .finally(() => {
        Atomics.sub(line.openRenderers, 0, 1);
        channel.postMessage({ type: 'closed' } satisfies ShutdownMessage);
        channel.close();
      });
  };
  // Listening must not keep an idle thread alive.
  channel.unref();
}

/**
 * Pool side: asks every thread counted by `closeOnShutdown` to close its renderer and waits
 * until all have, or `timeoutMs` passed. Returns false on time-out. Call once no render is in
 * flight, so no thread is starting a browser meanwhile.
 */
export async function shutDownRenderers(line: ShutdownLine, timeoutMs: number): Promise<boolean> {
  if (Atomics.load(line.openRenderers, 0) === 0) return true;
  const channel = new BroadcastChannel(line.channelName);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<boolean>((resolve) => {
      channel.onmessage = () => {
        if (Atomics.load(line.openRenderers, 0) === 0) resolve(true);
      };
      timer = setTimeout(() => resolve(false), timeoutMs);
      channel.postMessage({ type: 'close' } satisfies ShutdownMessage);
    });
  } finally {
    clearTimeout(timer);
    channel.close();
  }
}

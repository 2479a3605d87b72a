import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { toError } from '../errors.js';
import { browserRestarts, renderDuration, renders } from '../metrics/process-metrics.js';
import { SECOND } from '../time.js';
import type { RenderMockupInput, RenderMockupOutput, RenderWorkerData } from '../workers/render-mockup.js';
import { workerFile } from '../workers/worker-file.js';
import { createShutdownLine, shutDownRenderers } from './renderer-shutdown.js';
import { assertViewport, DEFAULT_VIEWPORT, type Viewport } from './viewport.js';

export interface RenderPoolOptions {
  /** Chromium executable, normally from `findChromium()`. */
  chromiumPath: string;
  /** Worker threads, each driving its own Chromium (default: 2, or 1 on a single core). */
  threads?: number;
  /** Size of mockups whose task declares none (default 1280×720, a 720p laptop screen). */
  defaultViewport?: Viewport;
  /**
   * Tabs each browser renders in at once (default 3). Loading one mockup, painting another
   * and encoding a third overlap; more tabs than that only add memory on two cores.
   */
  pagesPerBrowser?: number;
  /** Time one render may take from navigation to screenshot (default 30 s). */
  renderTimeoutMs?: number;
  /** Folder in which the pool keeps the browsers' throwaway profiles (default: `os.tmpdir()`). */
  tempDir?: string;
  /** Errors of a worker thread outside any render (default: `process.emitWarning`). */
  onWorkerError?: (error: Error) => void;
}

export interface RenderTask {
  /** The mockup's HTML; must lie inside `rootDir`. */
  htmlPath: string;
  /** The version folder, the only place the mockup may load files (CSS, images, fonts) from. */
  rootDir: string;
  /** Where the PNG goes; replaced atomically, its folder created when missing. */
  outPath: string;
  /** Defaults to the pool's `defaultViewport`. */
  viewport?: Viewport;
}

export type RenderResult = RenderMockupOutput;

export interface RenderPool {
  /** Renders one mockup to a PNG exactly the size of its viewport. */
  render(task: RenderTask): Promise<RenderResult>;
  /**
   * Renders all tasks, in parallel across threads and tabs. Resolves with the results in task
   * order once every render succeeded; if any failed, rejects after all have finished with
   * an AggregateError of the failures.
   */
  renderAll(tasks: readonly RenderTask[]): Promise<RenderResult[]>;
  /** Lets running renders finish, closes every browser (processes reaped, profiles removed) and stops the threads. */
  close(): Promise<void>;
}

// How long closing browsers may take before the threads are terminated regardless.
const BROWSER_SHUTDOWN_TIMEOUT = 15 * SECOND;

/** Piscina over threads that each own one reused Chromium; see src/workers/render-mockup.ts. */
export function createRenderPool(options: RenderPoolOptions): RenderPool {
  const threads = options.threads ?? Math.min(2, availableParallelism());
  const pagesPerBrowser = options.pagesPerBrowser ?? 3;
  const defaultViewport = options.defaultViewport ?? DEFAULT_VIEWPORT;
  assertViewport(defaultViewport);
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be a positive integer, got ${threads}.`);
  if (!Number.isInteger(pagesPerBrowser) || pagesPerBrowser < 1) {
    throw new Error(`pagesPerBrowser must be a positive integer, got ${pagesPerBrowser}.`);
  }

  const tempDir = mkdtempSync(join(options.tempDir ?? tmpdir(), 'render-pool-'));
  const shutdown = createShutdownLine();
  const workerData: RenderWorkerData = {
    chromiumPath: options.chromiumPath,
    tempDir,
    pagesPerBrowser,
    renderTimeoutMs: options.renderTimeoutMs ?? 30 * SECOND,
    shutdown,
  };
  const piscina = new Piscina<RenderMockupInput, RenderMockupOutput>({
    filename: workerFile('render-mockup'),
    // Threads (and their browsers) live as long as the pool.
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: pagesPerBrowser,
    // Piscina's default parks an idle thread in Atomics.wait, which freezes its event loop:
    // the browser's pipe would go unread and a crashed browser unnoticed until the next task.
    atomics: 'disabled',
    workerData,
  });
  const onWorkerError = options.onWorkerError ?? ((error: Error) => process.emitWarning(error));
  piscina.on('error', (error: unknown) => onWorkerError(toError(error)));

  const inFlight = new Set<Promise<RenderResult>>();
  let closing: Promise<void> | undefined;

  function render(task: RenderTask): Promise<RenderResult> {
    if (closing) return Promise.reject(new Error('The render pool is closed.'));
    const input: RenderMockupInput = {
      htmlPath: task.htmlPath,
      rootDir: task.rootDir,
      outPath: task.outPath,
      viewport: task.viewport ?? defaultViewport,
    };
    const endTimer = renderDuration.startTimer();
    const running = piscina.run(input).then(
      (result: RenderResult) => {
        endTimer();
        renders.inc({ outcome: 'rendered' });
        browserRestarts.inc(result.browserRestarts);
        return result;
      },
      (error: unknown) => {
        renders.inc({ outcome: 'failed' });
        // Errors arrive as structured clones from the thread; make sure callers get an Error.
        throw toError(error);
      },
    );
    inFlight.add(running);
    const forget = () => inFlight.delete(running);
    running.then(forget, forget);
    return running;
  }

  async function renderAll(tasks: readonly RenderTask[]): Promise<RenderResult[]> {
    const settled = await Promise.allSettled(tasks.map(render));
    const failures = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as Error] : []));
    if (failures.length > 0) {
      throw new AggregateError(failures, `${failures.length} of ${tasks.length} renders failed; first: ${failures[0]?.message}`);
    }
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<RenderResult>).value);
  }

  async function shutDown(): Promise<void> {
    await Promise.allSettled(inFlight);
    const allClosed = await shutDownRenderers(shutdown, BROWSER_SHUTDOWN_TIMEOUT);
    if (!allClosed) onWorkerError(new Error('Some browsers did not close in time; terminating their threads.'));
    await piscina.destroy();
    // Profiles of browsers that could not be closed cleanly.
    await rm(tempDir, { recursive: true, force: true, maxRetries: 3 });
  }

  return {
    render,
    renderAll,
    close: () => (closing ??= shutDown()),
  };
}

import { workerData } from 'node:worker_threads';
import { MockupRenderer } from '../render/mockup-renderer.js';
import { closeOnShutdown, type ShutdownLine } from '../render/renderer-shutdown.js';
import type { Viewport } from '../render/viewport.js';
import { writePng, type WrittenPng } from '../render/write-png.js';

export interface RenderMockupInput {
  /** The mockup's HTML; must lie inside `rootDir`. */
  htmlPath: string;
  /** The version folder: the only place the mockup may load files from. */
  rootDir: string;
  /** Where the PNG goes; replaced atomically, its folder created when missing. */
  outPath: string;
  viewport: Viewport;
}

export interface RenderMockupOutput extends WrittenPng {
  /**
   * URLs the mockup asked for and was refused: anything on the network, and files outside
   * its folder. Empty for a self-contained mockup; otherwise the PNG may lack what they held.
   */
  blockedUrls: string[];
  /** Browsers this thread launched again (after a crash or kill) since its last answer. */
  browserRestarts: number;
}

/** What the render pool hands every thread in `workerData`. */
export interface RenderWorkerData {
  chromiumPath: string;
  /** Folder for the browsers' throwaway profiles. */
  tempDir: string;
  /** Tabs per browser, which is also the tasks each thread takes at once. */
  pagesPerBrowser: number;
  renderTimeoutMs: number;
  shutdown: ShutdownLine;
}

// One browser per thread, kept for the life of the thread: starting Chromium costs far more
// than a render. Created on the first task, not on import.
let renderer: MockupRenderer | undefined;

function threadRenderer(): MockupRenderer {
  if (renderer) return renderer;
  const settings = workerData as RenderWorkerData;
  const created = new MockupRenderer({
    chromiumPath: settings.chromiumPath,
    tempDir: settings.tempDir,
    pages: settings.pagesPerBrowser,
    timeoutMs: settings.renderTimeoutMs,
  });
  closeOnShutdown(settings.shutdown, () => created.close());
  renderer = created;
  return created;
}

/** Piscina task: renders one HTML mockup to a PNG the size of its viewport. */
export default async function renderMockup(input: RenderMockupInput): Promise<RenderMockupOutput> {
  const renderer = threadRenderer();
  const { png, blockedUrls } = await renderer.render(input);
  return { ...(await writePng(png, input.outPath)), blockedUrls, browserRestarts: renderer.takeRestarts() };
}

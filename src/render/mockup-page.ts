import type { BrowserContext, CDPSession, Dialog, HTTPRequest, Page } from 'puppeteer-core';
import type { CaptureGate } from './capture-gate.js';
import { FONTS_SETTLED, loadInFrameScript } from './frame-host.js';
import { isRequestAllowed } from './request-guard.js';
import type { Viewport } from './viewport.js';

/** The tab's renderer process died (out of memory, killed, a Chromium bug). */
export class PageCrashedError extends Error {
  constructor(cause?: unknown) {
    super('its browser tab crashed', { cause });
    this.name = 'PageCrashedError';
  }
}

export interface Shot {
  /** `file:` URL of the mockup's HTML. */
  url: string;
  /** Real path of the folder the mockup may load files from. */
  rootReal: string;
  viewport: Viewport;
  /** Budget for the whole shot, in milliseconds. */
  timeoutMs: number;
}

export interface TakenShot {
  /** Chromium's PNG of the viewport. */
  png: Uint8Array;
  /** Up to `MAX_BLOCKED_URLS` distinct URLs the mockup asked for and was refused (network, or outside its folder). */
  blockedUrls: string[];
}

// A mockup that polls a server could ask thousands of times; a few name the problem.
export const MAX_BLOCKED_URLS = 20;

/**
 * One browser tab that renders mockup after mockup. Its request filter and dialog handler
 * are installed once and read the current task from the instance, so nothing piles up or
 * leaks from one task to the next.
 */
export class MockupPage {
  /** Root of the task in progress; null between tasks, when every file is refused. */
  #rootReal: string | null = null;
  #viewport: Viewport | null = null;
  /** Why the tab was closed under a running shot, so the shot can say so. */
  #abandoned: 'timeout' | 'crash' | null = null;
  /** What the running shot is waiting for, named in the error when it times out. */
  #step = '';
  #blocked = new Set<string>();

  private constructor(
    private readonly page: Page,
    private readonly session: CDPSession,
    private readonly gate: CaptureGate,
    private readonly hostUrl: string,
  ) {}

  /**
   * Opens a tab in `context`, in a window of its own. Tabs of one browser should share a
   * context: Chromium then keeps their renderer processes across navigations, where a
   * context per tab made it start a new process for almost every mockup. But tabs sharing a
   * window are hidden behind the active one, and a hidden tab draws no frames to capture.
   * The tab stays on `hostUrl` (see `writeFrameHost`) and loads mockups into frames.
   * Call it through `gate.openTab`, the gate of the tab's browser.
   */
  static async open(context: BrowserContext, gate: CaptureGate, hostUrl: string): Promise<MockupPage> {
    const page = await context.newPage({ type: 'window' });
    try {
      // Our own session for captures: page.screenshot() takes one screenshot at a time per
      // browser context, which would serialise the tabs.
      const mockupPage = new MockupPage(page, await page.createCDPSession(), gate, hostUrl);
      await page.setRequestInterception(true);
      page.on('request', (request) => mockupPage.#filter(request));
      page.on('dialog', dismiss);
      // A crashed tab answers nothing more; closing it fails the running shot at once instead
      // of at its deadline.
      page.on('error', () => mockupPage.#abandon('crash'));
      await page.goto(hostUrl, { waitUntil: 'load' });
      return mockupPage;
    } catch (error) {
      await page.close().catch(() => {});
      throw error;
    }
  }

  /**
   * Loads the mockup, waits for its fonts and returns Chromium's PNG of the viewport. After a
   * failure the tab may be in any state: close it rather than reuse it.
   */
  async shoot(shot: Shot): Promise<TakenShot> {
    this.#rootReal = shot.rootReal;
    this.#blocked = new Set();
    // Closing the tab is the one thing that fails every pending protocol call at once,
    // whatever the page is stuck in (a script loop, a font that never settles).
    const deadline = setTimeout(() => this.#abandon('timeout'), shot.timeoutMs);
    try {
      const png = await this.#load(shot);
      return { png, blockedUrls: [...this.#blocked] };
    } catch (error) {
      if (this.#abandoned === 'crash') throw new PageCrashedError(error);
      if (this.#abandoned === 'timeout') {
        throw new Error(`it took longer than ${shot.timeoutMs} ms to load and render (stuck ${this.#step})`, {
          cause: error,
        });
      }
      throw error;
    } finally {
      clearTimeout(deadline);
      this.#rootReal = null;
    }
  }

  /** False once the tab crashed, timed out or was closed. */
  get isUsable(): boolean {
    return this.#abandoned === null && !this.page.isClosed();
  }

  async close(): Promise<void> {
    await this.page.close().catch(() => {});
  }

  async #load(shot: Shot): Promise<Uint8Array> {
    const { width, height } = shot.viewport;
    // Changing the viewport costs a relayout; tasks of one batch share their size.
    if (this.#viewport?.width !== width || this.#viewport.height !== height) {
      this.#step = 'resizing the viewport';
      await this.page.setViewport({ width, height, deviceScaleFactor: 1 });
      this.#viewport = { width, height };
    }
    this.#step = 'loading the page';
    await this.page.evaluate(loadInFrameScript(shot.url));
    const frame = this.page.mainFrame().childFrames().find((child) => child.url() === shot.url);
    if (!frame) throw new Error('its frame did not show the mockup (did the mockup navigate away?)');
    this.#step = 'waiting for fonts';
    await frame.evaluate(FONTS_SETTLED);
    this.#step = 'capturing the screenshot';
    const { data } = await this.gate.capture(() =>
      this.session.send('Page.captureScreenshot', {
        format: 'png',
        // Chromium's fastest zlib setting, a quarter of the CPU of its default: sharp
        // re-encodes the PNG anyway.
        optimizeForSpeed: true,
        // Only what fits the viewport; capturing beyond it resizes the page to its full
        // height and back, two more layouts.
        captureBeyondViewport: false,
      }),
    );
    return Buffer.from(data, 'base64');
  }

  #abandon(reason: 'timeout' | 'crash'): void {
    this.#abandoned ??= reason;
    void this.close();
  }

  #filter(request: HTTPRequest): void {
    const url = request.url();
    const allowed = url === this.hostUrl || isRequestAllowed(url, this.#rootReal);
    if (!allowed && this.#rootReal !== null && this.#blocked.size < MAX_BLOCKED_URLS) this.#blocked.add(url);
    const settled = allowed ? request.continue() : request.abort('blockedbyclient');
    // Rejects only when the page or browser went away meanwhile, which the task sees itself.
    settled.catch(() => {});
  }
}

function dismiss(dialog: Dialog): void {
  // alert() or confirm() would block the page until answered. Accepting "leave this page?"
  // lets the next navigation go ahead.
  const answered = dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss();
  answered.catch(() => {});
}

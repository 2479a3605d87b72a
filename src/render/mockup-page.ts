import type { CDPSession, Protocol } from 'puppeteer-core';
import type { CaptureGate } from './capture-gate.js';
import { writeInFrameScript } from './frame-host.js';
import { markupMayRunScript } from './mockup-markup.js';
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
  /** The mockup's document, from `mockupMarkup`. */
  markup: string;
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

/** Where a tab opens: its browser's own DevTools session, and the context its tabs share. */
export interface TabPlace {
  /** A session attached to the browser itself, which creates and closes targets. */
  browserSession: CDPSession;
  browserContextId: string | undefined;
  /** The gate of the tab's browser. */
  gate: CaptureGate;
  /** The page the tab shows mockups in; see `writeFrameHost`. */
  hostUrl: string;
}

const HOST_WORLD = 'mockup-host';
const HOST_LOADED =
  "document.readyState === 'complete' || new Promise((resolve) => addEventListener('load', resolve, { once: true }))";

/**
 * One browser tab that renders mockup after mockup, driven over a DevTools session of its
 * own rather than through a Puppeteer Page: a Page subscribes to network, runtime and
 * lifecycle events of every frame, which the browser serialises and Node parses for each
 * mockup though a render reads none of them. The request fence and the dialog handler are
 * installed once and read the current task from the instance, so nothing piles up or leaks
 * from one task to the next.
 */
export class MockupPage {
  /** Root of the task in progress; null between tasks, when every file is refused. */
  #rootReal: string | null = null;
  #viewport: Viewport | null = null;
  /** Why the tab was closed under a running shot, so the shot can say so. */
  #abandoned: 'timeout' | 'crash' | null = null;
  /** A mockup's script navigated the tab (`top.location = …`) away from the host page. */
  #leftHost = false;
  #closed = false;
  /** What the running shot is waiting for, named in the error when it times out. */
  #step = '';
  #blocked = new Set<string>();
  /** The host's isolated world: a mockup's scripts cannot touch the globals our script uses. */
  #hostContextId = 0;
  /** The host's frame has only ever shown mockups that run no script; the next may reuse it. */
  #frameReusable = false;

  private constructor(
    private readonly place: TabPlace,
    private readonly targetId: string,
    private readonly session: CDPSession,
  ) {}

  /**
   * Opens a tab in the place's context, in a window of its own, and shows the host page.
   * Tabs of one browser should share a context: Chromium then keeps their renderer
   * processes, where a context per tab made it start a new process for almost every mockup.
   * But tabs sharing a window are hidden behind the active one, and a hidden tab draws no
   * frames to capture. Call it through `place.gate.openTab`.
   */
  static async open(place: TabPlace, timeoutMs: number): Promise<MockupPage> {
    const { targetId } = await place.browserSession.send('Target.createTarget', {
      url: 'about:blank',
      browserContextId: place.browserContextId,
      newWindow: true,
    });
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let page: MockupPage | undefined;
    try {
      const { sessionId } = await place.browserSession.send('Target.attachToTarget', { targetId, flatten: true });
      const session = place.browserSession.connection()?.session(sessionId);
      if (!session) throw new Error(`no DevTools session ${sessionId} for the new tab`);
      page = new MockupPage(place, targetId, session);
      // Closing the tab fails whatever call the set-up is waiting on.
      const opening = page;
      timer = setTimeout(() => {
        timedOut = true;
        void opening.close();
      }, timeoutMs);
      await page.#setUp();
      return page;
    } catch (error) {
      await place.browserSession.send('Target.closeTarget', { targetId }).catch(() => {});
      if (timedOut) throw new Error(`a new tab did not show its host page within ${timeoutMs} ms`, { cause: error });
      // Its renderer died on the way up (or the tab went with it): nothing the mockup did.
      if (page && (page.#abandoned === 'crash' || (page.session.detached && !page.#closed))) {
        throw new PageCrashedError(error);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Shows the mockup, waits for its fonts and returns Chromium's PNG of the viewport. After a
   * failure the tab may be in any state: close it rather than reuse it.
   */
  async shoot(shot: Shot): Promise<TakenShot> {
    this.#rootReal = shot.rootReal;
    this.#blocked = new Set();
    // Closing the tab is the one thing that fails every pending protocol call at once,
    // whatever the page is stuck in (a script loop, a font that never settles).
    const deadline = setTimeout(() => this.#abandon('timeout'), shot.timeoutMs);
    try {
      const png = await this.#show(shot);
      return { png, blockedUrls: [...this.#blocked] };
    } catch (error) {
      if (this.#abandoned === 'crash') throw new PageCrashedError(error);
      if (this.#leftHost) {
        throw new Error('its script navigated the browser tab away (it set top or parent location)', { cause: error });
      }
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
    return this.#abandoned === null && !this.#leftHost && !this.#closed && !this.session.detached;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.place.browserSession.send('Target.closeTarget', { targetId: this.targetId }).catch(() => {});
  }

  async #setUp(): Promise<void> {
    const { session } = this;
    session.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => this.#filter(event));
    session.on('Page.javascriptDialogOpening', (event: Protocol.Page.JavascriptDialogOpeningEvent) => {
      // alert() or confirm() would block the page until answered.
      session.send('Page.handleJavaScriptDialog', { accept: event.type === 'beforeunload' }).catch(() => {});
    });
    // A crashed tab answers nothing more; closing it fails the running shot at once instead
    // of at its deadline.
    session.on('Inspector.targetCrashed', () => this.#abandon('crash'));
    await Promise.all([
      session.send('Page.enable'),
      session.send('Inspector.enable'),
      // Every request pauses until `#filter` lets it go on or fails it.
      session.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }),
    ]);
    // Answers once the host's document is committed, so the world lands in it.
    const { frameId, errorText } = await session.send('Page.navigate', { url: this.place.hostUrl });
    if (errorText) throw new Error(`its host page ${this.place.hostUrl} did not load: ${errorText}`);
    const world = await session.send('Page.createIsolatedWorld', { frameId, worldName: HOST_WORLD });
    this.#hostContextId = world.executionContextId;
    await session.send('Runtime.evaluate', {
      expression: HOST_LOADED,
      contextId: this.#hostContextId,
      awaitPromise: true,
    });
    // Requested comes before the navigation fails our script; navigated covers any other way.
    session.on('Page.frameRequestedNavigation', (event: Protocol.Page.FrameRequestedNavigationEvent) => {
      if (event.frameId === frameId) this.#leftHost = true;
    });
    session.on('Page.frameNavigated', (event: Protocol.Page.FrameNavigatedEvent) => {
      if (event.frame.id === frameId) this.#leftHost = true;
    });
  }

  async #show(shot: Shot): Promise<Uint8Array> {
    const { session } = this;
    const { width, height } = shot.viewport;
    // Changing the viewport costs a relayout; tasks of one batch share their size.
    if (this.#viewport?.width !== width || this.#viewport.height !== height) {
      this.#step = 'resizing the viewport';
      await session.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
      this.#viewport = { width, height };
    }
    this.#step = 'loading the page and its fonts';
    const reuseFrame = this.#frameReusable;
    this.#frameReusable = !markupMayRunScript(shot.markup);
    const shown = await session.send('Runtime.evaluate', {
      expression: writeInFrameScript(this.place.hostUrl, shot.markup, reuseFrame),
      contextId: this.#hostContextId,
      awaitPromise: true,
      returnByValue: true,
    });
    if (shown.exceptionDetails) {
      const { exception, text } = shown.exceptionDetails;
      throw new Error(exception?.description ?? text);
    }
    this.#step = 'capturing the screenshot';
    const { data } = await this.place.gate.capture(() =>
      session.send('Page.captureScreenshot', {
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

  #filter({ requestId, request }: Protocol.Fetch.RequestPausedEvent): void {
    const { url } = request;
    const allowed = url === this.place.hostUrl || isRequestAllowed(url, this.#rootReal);
    if (!allowed && this.#rootReal !== null && this.#blocked.size < MAX_BLOCKED_URLS) this.#blocked.add(url);
    const settled = allowed
      ? this.session.send('Fetch.continueRequest', { requestId })
      : this.session.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
    // Rejects only when the tab or browser went away meanwhile, which the task sees itself.
    settled.catch(() => {});
  }
}

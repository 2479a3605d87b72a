import { toError } from '../errors.js';
import { SECOND } from '../time.js';
import { CaptureGate } from './capture-gate.js';
import { writeFrameHost } from './frame-host.js';
import { launchBrowser, type LaunchedBrowser } from './launch-browser.js';
import { mockupMarkup } from './mockup-markup.js';
import { MockupPage, PageCrashedError, type Shot, type TabPlace, type TakenShot } from './mockup-page.js';
import { resolveMockup } from './resolve-mockup.js';
import { assertViewport, type Viewport } from './viewport.js';

export interface MockupRendererOptions {
  chromiumPath: string;
  /** Folder for the browser's throwaway profile (default: `os.tmpdir()`). */
  tempDir?: string;
  /** Tabs rendering at the same time (default 3). Further renders wait for a free tab. */
  pages?: number;
  /** Time one render may take from loading to screenshot, and a new tab to come up (default 30 s). */
  timeoutMs?: number;
}

export interface MockupToRender {
  htmlPath: string;
  rootDir: string;
  viewport: Viewport;
}

/** A running browser and where its tabs open: one off-the-record context they share. */
interface LiveBrowser {
  launched: LaunchedBrowser;
  place: TabPlace;
}

interface Tab {
  page: MockupPage;
  /** The browser the tab lives in; a tab outlives its browser only as garbage. */
  owner: LiveBrowser;
}

// New tabs of one render that may crash on their way up before the render gives up on its browser.
const MAX_OPEN_CRASHES = 3;

/** The browser or the tab died under a render, or on its way up; the render itself may be fine. */
class RendererGoneError extends Error {
  constructor(cause: unknown) {
    super(`the browser went away: ${(cause as Error).message}`, { cause });
    this.name = 'RendererGoneError';
  }
}

/**
 * One Chromium, started on first use, with a few tabs that are reused from mockup to mockup.
 * A browser that dies is replaced on the next render, and a render it took down with it is
 * tried once more on the new one.
 */
export class MockupRenderer {
  readonly #options: Required<Omit<MockupRendererOptions, 'tempDir'>> & { tempDir?: string };
  #browser: LiveBrowser | null = null;
  #launching: Promise<LiveBrowser> | null = null;
  /** Browsers being shut down (replaced or closed); `close()` waits for them. */
  readonly #retiring = new Set<Promise<void>>();
  #idleTabs: Tab[] = [];
  /** Tabs of the current browser, idle or busy or being opened. */
  #tabCount = 0;
  #tabWaiters: Array<() => void> = [];
  #closed = false;
  /** Browsers launched so far, and how many launches after the first were already reported. */
  #launches = 0;
  #reportedRestarts = 0;

  constructor(options: MockupRendererOptions) {
    this.#options = { pages: 3, timeoutMs: 30 * SECOND, ...options };
  }

  /** Renders the mockup and returns Chromium's PNG of the viewport. Errors name the HTML file. */
  async render(mockup: MockupToRender): Promise<TakenShot> {
    try {
      assertViewport(mockup.viewport);
      const { url, html, rootReal } = await resolveMockup(mockup.htmlPath, mockup.rootDir);
      const markup = mockupMarkup(html, url);
      const shot: Shot = { markup, rootReal, viewport: mockup.viewport, timeoutMs: this.#options.timeoutMs };
      try {
        return await this.#shoot(shot);
      } catch (error) {
        if (!(error instanceof RendererGoneError)) throw error;
        // Once only: a mockup that itself crashes its tab would otherwise take down browser
        // after browser.
        return await this.#shoot(shot);
      }
    } catch (error) {
      throw new Error(`Could not render ${mockup.htmlPath}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Closes the tabs and the browser and waits until its process is gone. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeTabWaiters();
    const launching = this.#launching;
    if (launching) await launching.catch(() => {});
    if (this.#browser) this.#retire(this.#browser);
    await Promise.all(this.#retiring);
  }

  async #shoot(shot: Shot): Promise<TakenShot> {
    const tab = await this.#acquireTab();
    try {
      const taken = await tab.page.shoot(shot);
      this.#releaseTab(tab);
      return taken;
    } catch (error) {
      this.#discardTab(tab);
      if (error instanceof PageCrashedError && tab.owner === this.#browser) {
        // Tabs of one browser mostly share a renderer process, so the idle ones likely went
        // down with this one, which Chromium may not have reported yet. The retry should not
        // be spent on one of them.
        for (const idle of this.#idleTabs.splice(0)) this.#discardTab(idle);
      }
      const browserGone = !tab.owner.launched.browser.connected;
      if (browserGone || error instanceof PageCrashedError) throw new RendererGoneError(error);
      throw error;
    }
  }

  async #acquireTab(): Promise<Tab> {
    let openCrashes = 0;
    for (;;) {
      if (this.#closed) throw new Error('The mockup renderer is closed.');
      // A browser that cannot start was, as far as we know, killed on its way up; retrying
      // costs one more launch when Chromium is broken for good.
      const owner = await this.#currentBrowser().catch((error: unknown) => {
        throw this.#closed ? error : new RendererGoneError(error);
      });
      const idle = this.#idleTabs.pop();
      if (idle?.page.isUsable) return idle;
      // Crashed or navigated away while idle: a late `top.location` of the last mockup.
      if (idle) {
        this.#discardTab(idle);
        continue;
      }
      if (this.#tabCount < this.#options.pages) {
        this.#tabCount += 1;
        try {
          // Raced because Puppeteer's newPage() does not notice its browser dying between
          // creating the tab and the tab showing up: it waits out its own 30 s instead.
          const opening = owner.place.gate.openTab(() => MockupPage.open(owner.place, this.#options.timeoutMs));
          return { page: await Promise.race([opening, owner.launched.gone]), owner };
        } catch (error) {
          if (owner === this.#browser) this.#tabCount -= 1;
          this.#wakeTabWaiters();
          if (!owner.launched.browser.connected) throw new RendererGoneError(error);
          if (error instanceof PageCrashedError) {
            // No mockup was in it yet, so this render is not to blame: Chromium can put a new
            // tab in a renderer process that is already dying. Another tab gets a new process.
            openCrashes += 1;
            if (openCrashes < MAX_OPEN_CRASHES) continue;
            throw new RendererGoneError(error);
          }
          throw error;
        }
      }
      await new Promise<void>((resolve) => this.#tabWaiters.push(resolve));
    }
  }

  #releaseTab(tab: Tab): void {
    if (tab.owner !== this.#browser || !tab.page.isUsable) {
      this.#discardTab(tab);
      return;
    }
    this.#idleTabs.push(tab);
    this.#tabWaiters.shift()?.();
  }

  #discardTab(tab: Tab): void {
    void tab.page.close();
    // Tabs of a replaced browser were written off with it.
    if (tab.owner === this.#browser) this.#tabCount -= 1;
    this.#tabWaiters.shift()?.();
  }

  #wakeTabWaiters(): void {
    for (const wake of this.#tabWaiters.splice(0)) wake();
  }

  #currentBrowser(): Promise<LiveBrowser> {
    // Normally the 'disconnected' handler has already retired a dead browser; this covers a
    // render that notices first.
    if (this.#browser && !this.#browser.launched.browser.connected) this.#retire(this.#browser);
    if (this.#browser) return Promise.resolve(this.#browser);
    this.#launching ??= this.#launch().finally(() => {
      this.#launching = null;
    });
    return this.#launching;
  }

  async #launch(): Promise<LiveBrowser> {
    const launched = await launchBrowser({ chromiumPath: this.#options.chromiumPath, tempDir: this.#options.tempDir });
    let live: LiveBrowser;
    try {
      if (this.#closed) throw new Error('The mockup renderer is closed.');
      // Off the record: nothing the mockups do is written to the profile on disk.
      const context = await launched.browser.createBrowserContext();
      const place: TabPlace = {
        browserSession: await launched.browser.target().createCDPSession(),
        browserContextId: context.id,
        gate: new CaptureGate(),
        // In the profile folder, which goes when the browser does.
        hostUrl: await writeFrameHost(launched.userDataDir),
      };
      live = { launched, place };
    } catch (error) {
      await launched.close();
      throw error;
    }
    this.#browser = live;
    this.#idleTabs = [];
    this.#tabCount = 0;
    this.#launches += 1;
    launched.browser.once('disconnected', () => {
      if (this.#browser !== live) return;
      this.#retire(live);
      // Renders waiting for a tab go on to start the next browser.
      this.#wakeTabWaiters();
    });
    return live;
  }

  /** Browser restarts (launches after the first) since the last call: each is counted once. */
  takeRestarts(): number {
    const restarts = Math.max(0, this.#launches - 1) - this.#reportedRestarts;
    this.#reportedRestarts += restarts;
    return restarts;
  }

  #retire(live: LiveBrowser): void {
    if (this.#browser === live) {
      this.#browser = null;
      this.#idleTabs = [];
      this.#tabCount = 0;
    }
    const { launched } = live;
    // Reaps a crashed browser's process and removes its profile folder either way. Nothing
    // waits on a replaced browser, so a failure to clean up is reported, not thrown.
    const closing = launched
      .close()
      .catch((error: unknown) => process.emitWarning(toError(error, `Closing Chromium ${launched.pid} failed`)))
      .finally(() => this.#retiring.delete(closing));
    this.#retiring.add(closing);
  }
}

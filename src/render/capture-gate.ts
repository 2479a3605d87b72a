/**
 * Keeps opening tabs and taking screenshots apart within one browser. A screenshot pending
 * while Chromium opens a tab can wait forever for a frame: the new tab briefly changes which
 * tabs count as visible (puppeteer/puppeteer#4341; about 3 in 100 shots when tabs open under
 * load here, none when they do not). Screenshots run side by side; opening a tab waits for
 * the running screenshots, and new ones wait for the tab.
 */
export class CaptureGate {
  #capturing = 0;
  /** Settles when the tab being opened is open; null when none is. */
  #opening: Promise<unknown> | null = null;
  #onDrained: (() => void) | null = null;

  async capture<T>(take: () => Promise<T>): Promise<T> {
    while (this.#opening) await this.#opening.catch(() => {});
    this.#capturing += 1;
    try {
      return await take();
    } finally {
      this.#capturing -= 1;
      if (this.#capturing === 0) this.#onDrained?.();
    }
  }

  async openTab<T>(open: () => Promise<T>): Promise<T> {
    while (this.#opening) await this.#opening.catch(() => {});
    const opening = (async () => {
      if (this.#capturing > 0) await new Promise<void>((resolve) => (this.#onDrained = resolve));
      this.#onDrained = null;
      return open();
    })();
    this.#opening = opening;
    try {
      return await opening;
    } finally {
      this.#opening = null;
    }
  }
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { SECOND } from '../time.js';
import { killProcessGroup } from './kill-process-group.js';

export interface LaunchBrowserOptions {
  /** Executable to run, normally from `findChromium()`. */
  chromiumPath: string;
  /** Folder that holds the browser's throwaway profile folder (default: `os.tmpdir()`). */
  tempDir?: string;
  /** How long Chromium may take to start (default 30 s). */
  launchTimeoutMs?: number;
  extraArgs?: string[];
}

/** A running headless Chromium and the means to stop it without leaving anything behind. */
export interface LaunchedBrowser {
  browser: Browser;
  /** Process id of the browser's main process. */
  pid: number;
  /** The fresh profile folder; `close()` removes it. */
  userDataDir: string;
  /**
   * Rejects once the browser has disconnected (exited, was killed or closed); never resolves.
   * Race waits against it that Puppeteer does not end by itself when the browser dies.
   */
  gone: Promise<never>;
  /** Closes the browser (killing it if it does not exit in time) and removes its profile. Idempotent. */
  close(): Promise<void>;
}

// Every call on the DevTools protocol gets this long before Puppeteer gives up on it; callers
// put their own, shorter deadline on a whole render.
const PROTOCOL_TIMEOUT = 60 * SECOND;
// A browser that has not exited this long after Browser.close is killed.
const GRACEFUL_CLOSE_TIMEOUT = 5 * SECOND;

/**
 * Flags added to Puppeteer's defaults (which already turn off background timers and
 * throttling of hidden pages). Requests are also fenced per page by request interception;
 * these flags make sure that whatever interception cannot see still goes nowhere.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--disable-gpu',
  // Background fetches (component updates, sync, QUIC probing, variations) would be refused
  // by this host's firewall and, worse, stall start-up while they time out.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--hide-scrollbars',
  '--mute-audio',
  // Hinting depends on the machine's fontconfig; without it glyphs land on the same pixels
  // everywhere, so references rendered on one machine compare with shots from another.
  '--font-render-hinting=none',
  // WebSockets are not seen by request interception. No host, not even an IP literal or
  // localhost, resolves.
  '--host-resolver-rules=MAP * ~NOTFOUND',
  // WebRTC sends STUN over UDP straight to IP addresses, past the resolver.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // Headless Chrome still builds the browser's own WebUI for every window: omnibox popups and
  // a reload button, each a page of its own that reloads its scripts as the tab navigates.
  // Nobody sees them; with them a render cost about 20% more CPU (Chromium 156). Puppeteer
  // merges this list with its own --disable-features, and Chromium ignores names it lacks.
  '--disable-features=WebUIReloadButton,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup',
];

// Puppeteer turns the popup blocker off; a mockup's window.open would then get a page that no
// interception watches.
const DROPPED_DEFAULT_ARGS = ['--disable-popup-blocking'];

export async function launchBrowser(options: LaunchBrowserOptions): Promise<LaunchedBrowser> {
  const userDataDir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'chromium-profile-'));
  // Chromium's sandbox needs user namespaces that root in a container rarely has, and
  // Chromium refuses to start as root with it anyway.
  const runningAsRoot = process.getuid?.() === 0;
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: options.chromiumPath,
      headless: true,
      // A pipe instead of a debugging port: nothing else on the machine can attach.
      pipe: true,
      userDataDir,
      args: [...CHROMIUM_ARGS, ...(options.extraArgs ?? []), ...(runningAsRoot ? ['--no-sandbox'] : [])],
      ignoreDefaultArgs: DROPPED_DEFAULT_ARGS,
      defaultViewport: null,
      timeout: options.launchTimeoutMs ?? 30 * SECOND,
      protocolTimeout: PROTOCOL_TIMEOUT,
      // Signals belong to the process that owns the pool (it closes the pool on SIGTERM), and
      // worker threads never see them.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw new Error(`Chromium (${options.chromiumPath}) did not start: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const pid = browser.process()?.pid;
  if (pid === undefined) throw new Error('Puppeteer launched Chromium but reports no process id.');
  const gone = new Promise<never>((_resolve, reject) => {
    const report = () => reject(new Error(`Chromium ${pid} exited`));
    if (browser.connected) browser.once('disconnected', report);
    else report();
  });
  // Only ever raced; a browser that dies with nothing waiting on it is no error.
  gone.catch(() => {});

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= closeAndClean(browser, userDataDir));
  return { browser, pid, userDataDir, gone, close };
}

async function closeAndClean(browser: Browser, userDataDir: string): Promise<void> {
  const child = browser.process();
  let timer: NodeJS.Timeout | undefined;
  const killLate = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child?.kill('SIGKILL');
      resolve();
    }, GRACEFUL_CLOSE_TIMEOUT);
  });
  try {
    // Works on a crashed browser too: Puppeteer then only reaps the process.
    await Promise.race([browser.close().catch(() => child?.kill('SIGKILL')), killLate]);
  } finally {
    clearTimeout(timer);
    // Puppeteer starts Chromium as the leader of a group of its own and kills the group only
    // while the leader lives; a browser that crashed or was killed leaves its renderers and
    // zygotes to notice on their own, which under load takes a while. Kill them and wait.
    if (child?.pid !== undefined) await killProcessGroup(child.pid, GRACEFUL_CLOSE_TIMEOUT);
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 3 });
  }
}


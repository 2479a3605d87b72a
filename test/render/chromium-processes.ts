import { readdirSync, readFileSync } from 'node:fs';

export interface ChromiumProcess {
  pid: number;
  /** The browser's main process, as opposed to its renderer, GPU and utility children. */
  isBrowser: boolean;
  /** A process that runs tabs' pages. */
  isRenderer: boolean;
}

/** Live Chromium processes whose command line mentions `dir` (their profile lives under it). Linux only. */
export function chromiumProcessesUnder(dir: string): ChromiumProcess[] {
  const found: ChromiumProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Zombies have an empty command line and are no longer running.
    if (!commandLine.includes(dir)) continue;
    found.push({ pid: Number(entry), isBrowser: !commandLine.includes('--type='), isRenderer: commandLine.includes('--type=renderer') });
  }
  return found;
}

/** CPU time (user + system, ms) a process has used so far; null once it is gone. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * Resolves once some Chromium renderer under `dir` has used `busyMs` more CPU than when
 * called: a page's script is running, so its render is under way. An idle tab uses next to
 * none. Rejects after `timeoutMs`.
 */
export async function waitForBusyRenderer(dir: string, { busyMs = 50, timeoutMs = 10_000 } = {}): Promise<void> {
  const baseline = new Map<number, number>();
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    for (const { pid } of chromiumProcessesUnder(dir).filter((found) => found.isRenderer)) {
      const used = cpuMs(pid);
      if (used === null) continue;
      if (!baseline.has(pid)) baseline.set(pid, used);
      else if (used - baseline.get(pid)! >= busyMs) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`No renderer under ${dir} used ${busyMs} ms of CPU within ${timeoutMs} ms.`);
}

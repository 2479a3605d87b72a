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

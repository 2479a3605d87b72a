import { accessSync, constants } from 'node:fs';

/** Where Debian, Ubuntu and Google's packages put the browser, most likely first. */
const CANDIDATE_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium executable to drive: `explicitPath` (normally the CHROMIUM_PATH setting) when
 * given, else the first executable of `candidates` (the usual system install paths). We
 * never download a browser, so a machine without one gets an error saying what to install.
 */
export function findChromium(explicitPath?: string, candidates: readonly string[] = CANDIDATE_PATHS): string {
  if (explicitPath !== undefined && explicitPath !== '') {
    if (!isExecutable(explicitPath)) {
      throw new Error(`CHROMIUM_PATH is ${explicitPath}, which does not exist or is not executable.`);
    }
    return explicitPath;
  }
  const found = candidates.find(isExecutable);
  if (found === undefined) {
    throw new Error(
      `No Chromium found (looked for ${candidates.join(', ')}). ` +
        'Install it with `apt-get install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome executable.',
    );
  }
  return found;
}

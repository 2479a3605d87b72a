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
 * given, else the first system browser found. We never download a browser, so a machine
 * without one gets an error saying what to install.
 */
export function findChromium(explicitPath?: string): string {
  if (explicitPath !== undefined && explicitPath !== '') {
    if (!isExecutable(explicitPath)) {
      throw new Error(`CHROMIUM_PATH is ${explicitPath}, which does not exist or is not executable.`);
    }
    return explicitPath;
  }
  const found = CANDIDATE_PATHS.find(isExecutable);
  if (found === undefined) {
    throw new Error(
      `No Chromium found (looked for ${CANDIDATE_PATHS.join(', ')}). ` +
        'Install it with `apt-get install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome executable.',
    );
  }
  return found;
}

import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isInside } from './request-guard.js';

export interface ResolvedMockup {
  /** `file:` URL of the HTML, through any symlinks. */
  url: string;
  /** Real path of the HTML. */
  htmlReal: string;
  /** Real path of the folder the mockup may load its assets from. */
  rootReal: string;
}

/**
 * Checks a mockup before a browser spends time on it: the folder and the HTML must exist,
 * and the HTML must really live in the folder. The caller puts the HTML path in front of
 * the error messages.
 */
export async function resolveMockup(htmlPath: string, rootDir: string): Promise<ResolvedMockup> {
  const rootReal = await realpath(resolve(rootDir)).catch((error: unknown) => {
    throw new Error(`its folder ${rootDir} does not exist`, { cause: error });
  });
  const htmlReal = await realpath(resolve(htmlPath)).catch((error: unknown) => {
    throw new Error('the HTML file does not exist', { cause: error });
  });
  if (!(await stat(htmlReal)).isFile()) throw new Error('the HTML path is not a file');
  if (!isInside(rootReal, htmlReal)) {
    throw new Error(`the HTML file is outside its folder ${rootDir}`);
  }
  return { url: pathToFileURL(htmlReal).href, htmlReal, rootReal };
}

import { readFile, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isInside } from './request-guard.js';

export interface ResolvedMockup {
  /** `file:` URL of the HTML, through any symlinks. */
  url: string;
  /** The HTML file's bytes: tabs write the mockup into a frame rather than load its URL. */
  html: Buffer;
  /** Real path of the folder the mockup may load its assets from. */
  rootReal: string;
}

/**
 * Checks a mockup before a browser spends time on it, and reads it: the folder and the HTML
 * must exist, and the HTML must really live in the folder. The caller puts the HTML path in
 * front of the error messages.
 */
export async function resolveMockup(htmlPath: string, rootDir: string): Promise<ResolvedMockup> {
  const rootReal = await realpath(resolve(rootDir)).catch((error: unknown) => {
    throw new Error(`its folder ${rootDir} does not exist`, { cause: error });
  });
  const htmlReal = await realpath(resolve(htmlPath)).catch((error: unknown) => {
    throw new Error('the HTML file does not exist', { cause: error });
  });
  if (!isInside(rootReal, htmlReal)) {
    throw new Error(`the HTML file is outside its folder ${rootDir}`);
  }
  const html = await readFile(htmlReal).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw new Error('the HTML path is not a file', { cause: error });
    throw error;
  });
  return { url: pathToFileURL(htmlReal).href, html, rootReal };
}

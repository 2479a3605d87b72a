import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { sanitizeLogoSvg } from '../../src/models/sanitize-logo-svg.js';
import { findChromium } from '../../src/render/find-chromium.js';
import { listenOnLoopback, type LoopbackServer } from '../fakes/loopback-server.js';
import { until } from '../helpers/until.js';

/** Each way of naming an address a reviewer found or we thought of, by the path it asks for. */
const vectors = (origin: string) => ({
  'style-escape': `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" style="fill:u\\72l(${origin}/style-escape)"/></svg>`,
  'attribute-escape': `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="u\\72l(${origin}/attribute-escape)"/></svg>`,
  'style-comment': `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" style="background:u/**/rl(${origin}/style-comment)"><rect width="4" height="4"/></svg>`,
  'image-set': `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" style="background-image:image-set(url(${origin}/image-set) 1x)"><rect width="4" height="4"/></svg>`,
  'import': `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><style>@import url(${origin}/import);</style><rect width="4" height="4"/></svg>`,
  'root-background': `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" style="background:URL(${origin}/root-background)"><rect width="4" height="4"/></svg>`,
});

let browser: Browser;
let server: LoopbackServer;
const asked: string[] = [];
let page = '';

beforeAll(async () => {
  server = await listenOnLoopback((request, response) => {
    if (request.url === '/page') return void response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (request.url === '/favicon.ico') return void response.writeHead(404).end();
    asked.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png' }).end();
  });
  browser = await puppeteer.launch({
    executablePath: findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Shows the logos inline in a page, as a console does, and waits for the network to go quiet. */
async function show(logos: string[]) {
  page = `<!doctype html><html><body>${logos.join('')}</body></html>`;
  const tab = await browser.newPage();
  try {
    await tab.goto(`${server.origin}/page`, { waitUntil: 'networkidle0' });
  } finally {
    await tab.close();
  }
}

describe('a sanitized logo in Chromium', () => {
  it('fetches nothing, where the same logos unsanitized make Chromium fetch', async () => {
    const logos = vectors(server.origin);
    // The harness sees what Chromium fetches: unsanitized, every vector but the comment one
    // (which splits the function name) asks the loopback server.
    await show(Object.values(logos));
    const fetched = Object.keys(logos).filter((name) => name !== 'style-comment').map((name) => `/${name}`);
    await until(() => fetched.every((path) => asked.includes(path)), 10_000, `Chromium fetching ${fetched.join(', ')} for the unsanitized logos`);

    asked.length = 0;
    await show(Object.values(logos).map((markup) => sanitizeLogoSvg(markup)));
    expect(asked).toEqual([]);
  }, 60_000);
});

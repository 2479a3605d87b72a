import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeLogo } from '../../src/models/sanitize-logo.js';
import { expectCleanPng, httpError } from './logo-test-helpers.js';

async function centrePixel(png: Buffer): Promise<number[]> {
  const { data } = await sharp(png).extract({ left: 50, top: 50, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

describe('sanitizeLogo', () => {
  let dir: string;
  let redPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evb-logo-'));
    redPath = join(dir, 'red.png');
    writeFileSync(redPath, await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ff0000' } }).png().toBuffer());
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not let an SVG pull in a local file', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">' +
        `<rect width="100" height="100" fill="#0000ff"/><image href="file://${redPath}" xlink:href="file://${redPath}" width="100" height="100"/></svg>`,
    );
    const logo = await sanitizeLogo(svg, 100, '"pull.svg"');
    await expectCleanPng(logo.png, 100, 100);
    expect(await centrePixel(logo.png)).toEqual([0, 0, 255]);
  });

  it('refuses an SVG that declares an external entity', async () => {
    const svg = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>' +
        '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><text y="20">&x;</text></svg>',
    );
    const error = await httpError(sanitizeLogo(svg, 100, '"xxe.svg"'));
    expect(error.statusCode).toBe(422);
  });

  it('renders a huge nominal SVG at a density that fits, not at its nominal size', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="10000"><rect width="20000" height="10000" fill="#00ff00"/></svg>');
    const logo = await sanitizeLogo(svg, 256, '"wide.svg"');
    expect([logo.width, logo.height]).toEqual([256, 128]);
  });

  it('refuses an SVG too large to render even at the lowest density', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9000000" height="9000000"/>');
    const error = await httpError(sanitizeLogo(svg, 256, '"vast.svg"'));
    expect(error.statusCode).toBe(422);
    expect(error.message).toBe('The logo at "vast.svg" is 9000000 x 9000000 pixels; at most 4096 x 4096 are accepted.');
  });

  it.each(['webp', 'gif', 'jpeg', 'avif'] as const)('accepts a %s logo and re-encodes it as PNG', async (format) => {
    const image = await sharp({ create: { width: 300, height: 150, channels: 3, background: '#336699' } })
      .toFormat(format)
      .toBuffer();
    const logo = await sanitizeLogo(image, 256, `"logo.${format}"`);
    await expectCleanPng(logo.png, 256, 128);
  });

  it('keeps transparency', async () => {
    const clear = await sharp({ create: { width: 10, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    const logo = await sanitizeLogo(clear, 256, '"clear.png"');
    expect((await sharp(logo.png).metadata()).hasAlpha).toBe(true);
  });

  it('refuses an empty body as not an image', async () => {
    const error = await httpError(sanitizeLogo(Buffer.alloc(0), 256, '"empty.png"'));
    expect(error.message).toBe('The file at "empty.png" is not an image.');
  });
});

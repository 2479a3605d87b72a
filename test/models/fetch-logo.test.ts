import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fetchLogo, type FetchLogoOptions } from '../../src/models/fetch-logo.js';
import { SECOND } from '../../src/time.js';
import { FAKE_LOGOS, startFakeLogoServer, type FakeLogoServer } from '../fakes/fake-logo-server.js';
import { expectCleanPng, httpError, pngChunkTypes } from './logo-test-helpers.js';

describe('fetchLogo', () => {
  let library: FakeLogoServer;
  const fetchNamed = (name: string, overrides: Partial<FetchLogoOptions> = {}) =>
    fetchLogo({ baseUrl: library.url, name, timeoutMs: 2 * SECOND, ...overrides });

  beforeAll(async () => {
    library = await startFakeLogoServer();
  });
  afterAll(async () => {
    await library.close();
  });
  beforeEach(async () => {
    await library.setMode({ kind: 'normal' });
    library.requests.length = 0;
  });

  describe('sanitizing', () => {
    it('shrinks a PNG to fit 256 x 256 and strips its EXIF, ICC profile and XMP', async () => {
      const source = await fetch(library.url + FAKE_LOGOS.png).then(async (response) => Buffer.from(await response.arrayBuffer()));
      // The fixture must carry what is to be stripped, or this test proves nothing.
      expect(pngChunkTypes(source)).toEqual(expect.arrayContaining(['eXIf', 'iCCP']));
      expect((await sharp(source).metadata()).xmp).toBeDefined();

      const logo = await fetchNamed(FAKE_LOGOS.png);
      expect(logo).toMatchObject({ width: 256, height: 128, sourceUrl: `${library.url}${FAKE_LOGOS.png}` });
      await expectCleanPng(logo.png, 256, 128);
    });

    it('never enlarges a small raster image', async () => {
      const logo = await fetchNamed(FAKE_LOGOS.small);
      await expectCleanPng(logo.png, 64, 32);
    });

    it('honours a smaller maxSize', async () => {
      const logo = await fetchNamed(FAKE_LOGOS.png, { maxSize: 100 });
      await expectCleanPng(logo.png, 100, 50);
    });

    it('rasterizes an SVG icon to fill the box instead of its tiny nominal size', async () => {
      const logo = await fetchNamed(FAKE_LOGOS.svg);
      await expectCleanPng(logo.png, 256, 256);
      const { data } = await sharp(logo.png).extract({ left: 128, top: 128, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
      expect([...data.subarray(0, 3)]).toEqual([0xd9, 0x77, 0x57]);
    });

    it('applies the EXIF orientation before dropping the EXIF', async () => {
      const logo = await fetchNamed(FAKE_LOGOS.rotatedJpeg);
      await expectCleanPng(logo.png, 20, 40);
    });
  });

  describe('refusing what is not a logo', () => {
    it('refuses an HTML page labelled image/png with 422', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.notAnImage));
      expect(error.statusCode).toBe(422);
      expect(error.code).toBe('unprocessable');
      expect(error.message).toBe('The file at "fake.png" is not an image.');
    });

    it('refuses an image format logos may not use', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.tiff));
      expect(error.statusCode).toBe(422);
      expect(error.message).toBe('The file at "acme.tiff" is a tiff image; logos must be PNG, JPEG, WebP, GIF, AVIF or SVG.');
    });

    it('refuses a file whose header claims too many pixels, without decoding it', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.pixelBomb));
      expect(error.statusCode).toBe(422);
      expect(error.message).toBe('The logo at "bomb.png" is 30000 x 30000 pixels; at most 4096 x 4096 are accepted.');
    });

    it('refuses a truncated image', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.damaged));
      expect(error.statusCode).toBe(422);
      expect(error.message).toBe('The logo at "damaged.png" is a damaged or undecodable image.');
    });
  });

  describe('size cap', () => {
    it('refuses a file over 512 KiB by its Content-Length', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.huge));
      expect(error.statusCode).toBe(422);
      expect(error.code).toBe('unprocessable');
      expect(error.message).toBe('The logo "huge.png" is larger than 512 KiB.');
    });

    it('stops reading a chunked body with no length once it passes the cap', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.hugeChunked));
      expect(error.message).toBe('The logo "huge-chunked.png" is larger than 512 KiB.');
      await vi.waitFor(() => expect(library.transfers.at(-1)?.closed).toBe(true));
      const transfer = library.transfers.at(-1);
      expect(transfer?.finished).toBe(false);
      // Socket buffers hold a few MiB at most; reading it all would be 64 MiB.
      expect(transfer?.bytesSent).toBeLessThan(16 * 1024 * 1024);
    });

    it('stops reading a body delimited only by the connection closing', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.hugeUnsized));
      expect(error.message).toBe('The logo "huge-unsized.png" is larger than 512 KiB.');
    });

    it('reads no further than a Content-Length that understates the body', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.lyingLength));
      expect(error.statusCode).toBe(422);
      expect(error.message).toBe('The file at "lying-length.png" is not an image.');
    });

    it('applies a smaller maxBytes', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.png, { maxBytes: 1024 }));
      expect(error.message).toBe('The logo "acme.png" is larger than 1 KiB.');
    });
  });

  describe('upstream', () => {
    it('answers 404 naming the logo the library does not have', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.missing));
      expect(error.statusCode).toBe(404);
      expect(error.code).toBe('not_found');
      expect(error.message).toBe('The logo library has no logo named "missing.png".');
    });

    it('follows a redirect inside the library and reports where the bytes came from', async () => {
      const logo = await fetchNamed(FAKE_LOGOS.moved);
      expect(logo.sourceUrl).toBe(`${library.url}${FAKE_LOGOS.png}`);
      await expectCleanPng(logo.png, 256, 128);
    });

    it('refuses to follow a redirect to another site', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.offsite));
      expect(error.statusCode).toBe(502);
      expect(error.code).toBe('upstream_unavailable');
      expect(error.message).toBe(
        `The logo library at ${library.origin}/icons redirected "offsite.png" to http://localhost:${new URL(library.origin).port}, which is outside the library.`,
      );
      expect(library.requests).toEqual([`/icons/${FAKE_LOGOS.offsite}`]);
    });

    it('gives up on a redirect loop', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.loop));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(`The logo library at ${library.origin}/icons redirected "loop.png" more than 3 times.`);
      expect(library.requests).toHaveLength(4);
    });

    it('answers 502 for a redirect that names no target', async () => {
      const error = await httpError(fetchNamed(FAKE_LOGOS.nowhere));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(`The logo library at ${library.origin}/icons redirected "nowhere.png" without a valid Location.`);
    });

    it('answers 502 naming the status when the library fails', async () => {
      await library.setMode({ kind: 'status', code: 500 });
      const error = await httpError(fetchNamed(FAKE_LOGOS.png));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(`The logo library at ${library.origin}/icons answered HTTP 500 for "acme.png".`);
    });

    it('answers 502 naming the timeout when the library is too slow', async () => {
      await library.setMode({ kind: 'slow', ms: 1500 });
      const error = await httpError(fetchNamed(FAKE_LOGOS.png, { timeoutMs: 200 }));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(`The logo library at ${library.origin}/icons did not answer within 200 ms.`);
    });

    it('answers 502 when the library refuses connections', async () => {
      await library.setMode({ kind: 'down' });
      const error = await httpError(fetchNamed(FAKE_LOGOS.png));
      expect(error.statusCode).toBe(502);
      expect(error.message).toBe(`The logo library at ${library.origin}/icons refused the connection.`);
    });
  });

  describe('name', () => {
    it.each([
      ['an absolute URL', 'https://evil.example/logo.png'],
      ['a scheme-relative URL', '//evil.example/logo.png'],
      ['a file URL', 'file:///etc/passwd'],
      ['an absolute path', '/etc/passwd'],
      ['a parent reference', '../secrets.png'],
      ['a nested parent reference', 'brand/../../secrets.png'],
      ['an encoded parent reference', '%2e%2e/secrets.png'],
      ['a backslash', 'brand\\..\\secrets.png'],
      ['a query', 'acme.png?download=1'],
      ['a fragment', 'acme.png#top'],
      ['an empty part', 'brand//acme.png'],
      ['a hidden file', '.env'],
      ['a space', 'acme logo.png'],
      ['a user-info host', 'user@evil.example'],
      ['nothing', ''],
      ['too many characters', `${'a'.repeat(300)}.png`],
    ])('refuses %s with 400 naming the field, and fetches nothing', async (_case, name) => {
      const error = await httpError(fetchNamed(name));
      expect(error.statusCode).toBe(400);
      expect(error.code).toBe('bad_request');
      expect(error.message).toMatch(/^name must be a logo file name or path inside the logo library/);
      expect(library.requests).toEqual([]);
    });

    it('accepts a path inside the library', async () => {
      const error = await httpError(fetchNamed('brand/dark/acme.png'));
      expect(error.statusCode).toBe(404);
      expect(library.requests).toEqual(['/icons/brand/dark/acme.png']);
    });
  });
});

import type { IncomingMessage, ServerResponse } from 'node:http';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { listenOnLoopback } from './loopback-server.js';

/** File names the fake library serves, by the case each one covers. */
export const FAKE_LOGOS = {
  /** 600 x 300 PNG carrying EXIF, an ICC profile and XMP. */
  png: 'acme.png',
  /** 64 x 32 PNG: smaller than any cap, so it must not be enlarged. */
  small: 'small.png',
  /** A 24-unit SVG icon sized "1em", as icon libraries ship them. */
  svg: 'acme.svg',
  /** 40 x 20 JPEG stored sideways with EXIF orientation 6: it displays 20 x 40. */
  rotatedJpeg: 'rotated.jpg',
  /** An HTML page served as image/png. */
  notAnImage: 'fake.png',
  /** A real image in a format logos may not use. */
  tiff: 'acme.tiff',
  /** 600 KiB with an honest Content-Length. */
  huge: 'huge.png',
  /** 64 MiB streamed chunked, no Content-Length; stops when the client goes away. */
  hugeChunked: 'huge-chunked.png',
  /** 2 MiB with no length at all: the body ends when the connection closes. */
  hugeUnsized: 'huge-unsized.png',
  /** Declares Content-Length 100, then keeps sending 2 MiB. */
  lyingLength: 'lying-length.png',
  /** A 1 KiB PNG whose header claims 30000 x 30000 pixels. */
  pixelBomb: 'bomb.png',
  /** A PNG cut off halfway through its pixel data. */
  damaged: 'damaged.png',
  /** 302 to acme.png in the same library. */
  moved: 'moved.png',
  /** 302 to the same file on another origin. */
  offsite: 'offsite.png',
  /** Redirects to itself forever. */
  loop: 'loop.png',
  /** A 302 with no Location header. */
  nowhere: 'nowhere.png',
  /** Not in the library: 404. */
  missing: 'missing.png',
} as const;

export type FakeLogoMode =
  | { kind: 'normal' }
  | { kind: 'slow'; ms: number }
  | { kind: 'down' }
  | { kind: 'status'; code: number };

/** What the server managed to send for one request of a streamed file. */
export interface Transfer {
  name: string;
  bytesSent: number;
  /** The whole file went out. */
  finished: boolean;
  /** The connection is gone (finished or dropped by the client). */
  closed: boolean;
}

export interface FakeLogoServer {
  /** The library's base URL, as LOGO_BASE_URL would be set: `http://127.0.0.1:<port>/icons/`. */
  url: string;
  origin: string;
  /** Paths requested, oldest first. */
  requests: string[];
  /** Streamed files only: how much of each was sent before the client stopped reading. */
  transfers: Transfer[];
  setMode(mode: FakeLogoMode): Promise<void>;
  close(): Promise<void>;
}

const PREFIX = '/icons/';
const KIB = 1024;
const MIB = 1024 * KIB;

/** A fake public logo library on loopback. The images are made with sharp at start. */
export async function startFakeLogoServer(): Promise<FakeLogoServer> {
  const files = await buildFiles();
  const requests: string[] = [];
  const transfers: Transfer[] = [];
  let mode: FakeLogoMode = { kind: 'normal' };

  const server = await listenOnLoopback((request, response) => {
    requests.push(request.url ?? '');
    if (mode.kind === 'status') {
      response.writeHead(mode.code, { 'content-type': 'text/plain' });
      return void response.end(`status ${mode.code}`);
    }
    if (mode.kind === 'slow') return server.after(mode.ms, () => !response.destroyed && serve(request, response));
    serve(request, response);
  });

  function serve(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '';
    const name = path.startsWith(PREFIX) ? path.slice(PREFIX.length) : '';
    const file = files.get(name);
    if (file) {
      response.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length });
      return void response.end(file.bytes);
    }
    switch (name) {
      case FAKE_LOGOS.moved:
        return redirect(response, `${PREFIX}${FAKE_LOGOS.png}`);
      case FAKE_LOGOS.offsite:
        return redirect(response, `http://localhost:${server.port}${PREFIX}${FAKE_LOGOS.png}`);
      case FAKE_LOGOS.loop:
        return redirect(response, `${PREFIX}${FAKE_LOGOS.loop}`);
      case FAKE_LOGOS.nowhere:
        response.writeHead(302);
        return void response.end();
      case FAKE_LOGOS.hugeChunked:
        return void streamChunked(name, response, 64 * MIB);
      case FAKE_LOGOS.hugeUnsized:
        return rawResponse(request, 'Connection: close', Buffer.alloc(2 * MIB, 0x41));
      case FAKE_LOGOS.lyingLength:
        return rawResponse(request, 'Content-Length: 100', Buffer.alloc(2 * MIB, 0x41));
      default:
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('Not Found');
    }
  }

  /** Whichever comes first; the other listener is removed, so a long transfer does not pile them up. */
  function drainedOrClosed(response: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        response.off('drain', done).off('close', done);
        resolve();
      };
      response.once('drain', done).once('close', done);
    });
  }

  async function streamChunked(name: string, response: ServerResponse, total: number): Promise<void> {
    const transfer: Transfer = { name, bytesSent: 0, finished: false, closed: false };
    transfers.push(transfer);
    response.on('close', () => {
      transfer.closed = true;
    });
    // No Content-Length, so node sends it chunked: the client learns the size only by reading.
    response.writeHead(200, { 'content-type': 'image/png' });
    const chunk = Buffer.alloc(64 * KIB, 0x89);
    while (transfer.bytesSent < total && !response.destroyed) {
      const flushed = response.write(chunk);
      transfer.bytesSent += chunk.length;
      if (!flushed) await drainedOrClosed(response);
    }
    if (!response.destroyed) {
      transfer.finished = true;
      response.end();
    }
  }

  return {
    url: `${server.origin}${PREFIX}`,
    origin: server.origin,
    requests,
    transfers,
    async setMode(next) {
      if (next.kind === 'down') await server.stopListening();
      else await server.resumeListening();
      mode = next;
    },
    close: () => server.close(),
  };
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(302, { location });
  response.end();
}

/** Writes a response by hand, for framings node's http module refuses to produce. */
function rawResponse(request: IncomingMessage, framing: string, body: Buffer): void {
  const socket = request.socket;
  socket.write(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n${framing}\r\n\r\n`);
  socket.end(body);
}

async function buildFiles(): Promise<Map<string, { type: string; bytes: Buffer }>> {
  const blue = { r: 40, g: 90, b: 220, alpha: 1 };
  const png = await sharp({ create: { width: 600, height: 300, channels: 4, background: blue } })
    .png()
    .withExif({ IFD0: { Copyright: 'Acme Corp', ImageDescription: 'GPS 48.8584 N 2.2945 E' } })
    .withIccProfile('p3')
    .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>')
    .toBuffer();
  const small = await sharp({ create: { width: 64, height: 32, channels: 3, background: blue } }).png().toBuffer();
  const rotated = await sharp({ create: { width: 40, height: 20, channels: 3, background: blue } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const tiff = await sharp({ create: { width: 32, height: 32, channels: 3, background: blue } }).tiff().toBuffer();
  const solid = await sharp({ create: { width: 200, height: 200, channels: 3, background: blue, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .png()
    .toBuffer();
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="1em" height="1em">' +
    '<circle cx="12" cy="12" r="10" fill="#d97757"/></svg>';
  const html = '<!doctype html><html><body><h1>Acme</h1><img src="acme.png"></body></html>';

  return new Map([
    [FAKE_LOGOS.png, { type: 'image/png', bytes: png }],
    [FAKE_LOGOS.small, { type: 'image/png', bytes: small }],
    [FAKE_LOGOS.svg, { type: 'image/svg+xml', bytes: Buffer.from(svg) }],
    [FAKE_LOGOS.rotatedJpeg, { type: 'image/jpeg', bytes: rotated }],
    [FAKE_LOGOS.notAnImage, { type: 'image/png', bytes: Buffer.from(html) }],
    [FAKE_LOGOS.tiff, { type: 'image/tiff', bytes: tiff }],
    [FAKE_LOGOS.huge, { type: 'image/png', bytes: Buffer.alloc(600 * KIB, 0x89) }],
    [FAKE_LOGOS.pixelBomb, { type: 'image/png', bytes: withPngSize(small, 30_000, 30_000) }],
    [FAKE_LOGOS.damaged, { type: 'image/png', bytes: solid.subarray(0, Math.floor(solid.length / 2)) }],
  ]);
}

/** A copy of a PNG whose IHDR claims another size (its CRC recomputed, so decoders read it). */
function withPngSize(png: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(png);
  // Signature (8) + IHDR length (4) + type (4), then width and height; the CRC covers type + data.
  copy.writeUInt32BE(width, 16);
  copy.writeUInt32BE(height, 20);
  copy.writeUInt32BE(crc32(copy.subarray(12, 29)), 29);
  return copy;
}

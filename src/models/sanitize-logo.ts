import sharp, { type Metadata } from 'sharp';
import { HttpError, unprocessable } from '../errors.js';

export interface SanitizedImage {
  png: Buffer;
  width: number;
  height: number;
}

/**
 * Formats a logo may arrive in (sharp reports AVIF as `heif`); TIFF, RAW and the rest are
 * refused to keep the decoders exposed to the internet few.
 */
const ACCEPTED_FORMATS: ReadonlySet<string> = new Set(['png', 'jpeg', 'webp', 'gif', 'heif', 'svg']);
/** 4096 px a side: far above any logo, far below a decode that would exhaust memory (64 MiB RGBA). */
const MAX_INPUT_SIDE = 4096;
const MAX_INPUT_PIXELS = MAX_INPUT_SIDE * MAX_INPUT_SIDE;
// sharp accepts densities (DPI) from 1 to 100000; 72 is its SVG default, where 1 unit = 1 px.
const SVG_DEFAULT_DENSITY = 72;
const MIN_DENSITY = 1;
const MAX_DENSITY = 100_000;

/**
 * Re-encodes untrusted image bytes as a plain PNG that fits in `maxSize` x `maxSize`.
 *
 * What the bytes are is decided by decoding them, never by a Content-Type or a file name.
 * Raster images are shrunk to fit and never enlarged. An SVG has no pixel size of its own,
 * so it is rasterized at the density that makes it fit `maxSize` (a 24-unit icon becomes
 * 256 px rather than a blurry 24 px); librsvg loads no external resources from a buffer.
 *
 * The output carries no EXIF, ICC, XMP or text chunk: sharp writes metadata only when told
 * to (`withMetadata`, `keep*`), and the EXIF orientation is applied to the pixels first.
 * `label` names the logo in messages.
 */
export async function sanitizeLogo(bytes: Buffer, maxSize: number, label: string): Promise<SanitizedImage> {
  let metadata: Metadata;
  try {
    // Header only: the pixel limit is checked below, with a message that says so.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new HttpError('unprocessable', `The file at ${label} is not an image.`, { cause: error });
  }
  const { format, width = 0, height = 0 } = metadata;
  if (!ACCEPTED_FORMATS.has(format)) {
    throw unprocessable(`The file at ${label} is a ${format} image; logos must be PNG, JPEG, WebP, GIF, AVIF or SVG.`);
  }

  const isSvg = format === 'svg';
  const density = isSvg ? fittingDensity(width, height, maxSize) : undefined;
  const scale = density === undefined ? 1 : density / SVG_DEFAULT_DENSITY;
  if (width * scale * height * scale > MAX_INPUT_PIXELS) {
    throw unprocessable(`The logo at ${label} is ${width} x ${height} pixels; at most ${MAX_INPUT_SIDE} x ${MAX_INPUT_SIDE} are accepted.`);
  }

  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, ...(density ? { density } : {}) })
      .rotate()
      .resize({ width: maxSize, height: maxSize, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  } catch (error) {
    throw new HttpError('unprocessable', `The logo at ${label} is a damaged or undecodable image.`, { cause: error });
  }
}

/** The DPI at which an SVG of `width` x `height` units (at 72 DPI) renders to fit `maxSize`. */
function fittingDensity(width: number, height: number, maxSize: number): number {
  const longest = Math.max(width, height, 1);
  const density = (SVG_DEFAULT_DENSITY * maxSize) / longest;
  return Math.min(MAX_DENSITY, Math.max(MIN_DENSITY, density));
}

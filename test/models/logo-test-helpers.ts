import sharp from 'sharp';
import { expect } from 'vitest';

/** PNG chunk types that carry metadata rather than pixels. */
const METADATA_CHUNKS = ['eXIf', 'iCCP', 'iTXt', 'tEXt', 'zTXt', 'tIME', 'sPLT'];

/** The chunk types of a PNG, in file order. */
export function pngChunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let offset = 8; offset + 8 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    types.push(png.toString('latin1', offset + 4, offset + 8));
    offset += 12 + length;
  }
  return types;
}

/** Fails unless `png` is a PNG of the given size with no metadata a decoder would report. */
export async function expectCleanPng(png: Buffer, width: number, height: number): Promise<void> {
  const metadata = await sharp(png).metadata();
  expect(metadata).toMatchObject({ format: 'png', width, height });
  expect(metadata.exif).toBeUndefined();
  expect(metadata.icc).toBeUndefined();
  expect(metadata.xmp).toBeUndefined();
  expect(metadata.comments ?? []).toEqual([]);
  expect(pngChunkTypes(png).filter((type) => METADATA_CHUNKS.includes(type))).toEqual([]);
}

export { httpError } from '../helpers/http-error.js';

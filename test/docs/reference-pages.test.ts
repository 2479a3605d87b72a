import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referencePages } from '../../src/docs/reference-pages.js';

const ROOT = resolve(__dirname, '../..');

describe('generated reference pages', () => {
  it.each([...referencePages()])('%s is what the source generates (run `npm run docs`)', (path, text) => {
    expect(readFileSync(join(ROOT, path), 'utf8'), `${path} has drifted from the source: run npm run docs and commit it`).toBe(text);
  });
});

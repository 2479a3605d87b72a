import { describe, expect, it } from 'vitest';
import { findChromium } from '../../src/render/find-chromium.js';

describe('findChromium', () => {
  it('uses an explicit path that exists', () => {
    expect(findChromium('/usr/bin/chromium')).toBe('/usr/bin/chromium');
  });

  it('names CHROMIUM_PATH when the explicit path does not exist', () => {
    expect(() => findChromium('/nowhere/chromium')).toThrow(/CHROMIUM_PATH is \/nowhere\/chromium/);
  });

  it('finds the system browser when no path is given', () => {
    expect(findChromium()).toBe('/usr/bin/chromium');
    expect(findChromium('')).toBe('/usr/bin/chromium');
  });
});

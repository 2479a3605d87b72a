import { describe, expect, it } from 'vitest';
import { resolveLogoUrl } from '../../src/models/logo-url.js';

describe('resolveLogoUrl', () => {
  it.each([
    ['https://cdn.example/icons/', 'anthropic.svg', 'https://cdn.example/icons/anthropic.svg'],
    ['https://cdn.example/icons', 'anthropic.svg', 'https://cdn.example/icons/anthropic.svg'],
    ['https://cdn.example/pkg@1.2.3/icons/', 'anthropic', 'https://cdn.example/pkg@1.2.3/icons/anthropic'],
    ['https://cdn.example/', 'dark/meta-color.png', 'https://cdn.example/dark/meta-color.png'],
    ['https://cdn.example', 'x_ai.v2.webp', 'https://cdn.example/x_ai.v2.webp'],
  ])('resolves %s + %s below the base', (base, name, expected) => {
    expect(resolveLogoUrl(base, name).href).toBe(expected);
  });

  it('names the field it was given in the message', () => {
    expect(() => resolveLogoUrl('https://cdn.example/icons/', '../x', 'logo')).toThrow(/^logo must be a logo file name/);
  });

  it.each([
    ['not a URL', 'cdn.example/icons'],
    ['another scheme', 'file:///srv/icons/'],
    ['a query', 'https://cdn.example/icons/?v=1'],
    ['credentials', 'https://user:pass@cdn.example/icons/'],
  ])('refuses a base URL with %s as a configuration error', (_case, base) => {
    expect(() => resolveLogoUrl(base, 'acme.png')).toThrow(TypeError);
  });
});

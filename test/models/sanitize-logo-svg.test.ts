import { describe, expect, it } from 'vitest';
import { sanitizeLogoSvg } from '../../src/models/sanitize-logo-svg.js';

const wrap = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${inner}</svg>`;

describe('sanitizeLogoSvg', () => {
  it('keeps drawing markup, with its case-sensitive attributes and in-document references', () => {
    const clean = sanitizeLogoSvg(wrap('<defs><linearGradient id="g"><stop offset="0"/></linearGradient></defs><rect fill="url(#g)" width="24" height="24"/>'));
    expect(clean).toContain('viewBox="0 0 24 24"');
    expect(clean).toContain('linearGradient');
    expect(clean).toContain('fill="url(#g)"');
  });

  it('removes scripts, event handlers, foreign objects, style sheets and references out of the document', () => {
    const clean = sanitizeLogoSvg(wrap(
      '<path d="M0 0h1" onclick="alert(1)"/><script>alert(2)</script><foreignObject><div>x</div></foreignObject>' +
      '<style>rect{fill:url(https://evil.example/p)}</style><image href="https://evil.example/x.png"/>' +
      '<use xlink:href="https://evil.example/s.svg#a"/><rect fill="url(https://evil.example/p)"/><a href="javascript:alert(3)"><path d="M1 1"/></a>',
    ));
    for (const gone of ['onclick', 'script', 'alert', 'foreignObject', 'style', 'evil.example', 'javascript']) expect(clean).not.toContain(gone);
    expect(clean).toContain('<path d="M0 0h1"');
  });

  it('refuses DOCTYPE and ENTITY declarations and markup without one <svg> root (422 naming the field)', () => {
    for (const markup of [
      '<!DOCTYPE svg [<!ENTITY x "y">]><svg></svg>',
      '<div>not a logo</div>',
      '<svg></svg><svg></svg>',
      '',
    ]) {
      expect(() => sanitizeLogoSvg(markup)).toThrow(expect.objectContaining({ statusCode: 422, message: expect.stringContaining('logoSvg') }));
    }
  });

  it('drops an XML declaration', () => {
    expect(sanitizeLogoSvg('<?xml version="1.0" encoding="UTF-8"?>\n<svg viewBox="0 0 1 1"><path d="M0 0"/></svg>')).toMatch(/^<svg/);
  });
});

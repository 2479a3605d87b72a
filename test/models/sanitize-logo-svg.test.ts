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

describe('sanitizeLogoSvg on CSS', () => {
  const gone = (markup: string) => expect(sanitizeLogoSvg(wrap(markup))).not.toMatch(/evil\.example/);

  it('drops CSS that could name an address however it is spelled: escapes, comments, image-set, @import', () => {
    for (const markup of [
      '<rect style="fill:u\\72l(https://evil.example/a)" width="1" height="1"/>',
      '<rect style="fill:\\75rl(https://evil.example/a)"/>',
      '<rect style="fill:u/**/rl(https://evil.example/a)"/>',
      '<rect style="fill:URL(https://evil.example/a)"/>',
      '<rect style="background-image:image-set(\'https://evil.example/a\' 1x)"/>',
      '<rect style="background-image:-webkit-image-set(url(https://evil.example/a) 1x)"/>',
      '<rect style="@import url(https://evil.example/a);fill:red"/>',
      '<rect style="fill:red;mask-image:url(https://evil.example/a)"/>',
      '<rect fill="u\\72l(https://evil.example/a)"/>',
      '<rect fill="u&#x5c;72l(https://evil.example/a)"/>',
      '<rect mask="u/**/rl(https://evil.example/a)"/>',
      '<rect filter="image-set(&quot;https://evil.example/a&quot; 1x)"/>',
      '<style>@import url(https://evil.example/a);</style>',
    ]) gone(markup);
  });

  it('keeps the presentation a style attribute sets and drops the rest of it', () => {
    const clean = sanitizeLogoSvg(wrap('<rect style="fill: #ff0000 ; stroke:url(#g);position:fixed;behavior:x" width="1" height="1"/><g transform="rotate(45 12 12)" fill="rgb(1, 2, 3)"/>'));
    expect(clean).toContain('style="fill:#ff0000;stroke:url(#g)"');
    expect(clean).toContain('transform="rotate(45 12 12)"');
    expect(clean).toContain('fill="rgb(1, 2, 3)"');
    expect(sanitizeLogoSvg(wrap('<rect style="position:fixed"/>'))).not.toContain('style');
  });
});

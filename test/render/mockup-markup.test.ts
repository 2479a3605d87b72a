import { describe, expect, it } from 'vitest';
import { markupMayRunScript, mockupMarkup } from '../../src/render/mockup-markup.js';

const FILE_URL = 'file:///catalog/cases/board/v2/mockups/index.html';
const BASE = `<base href="${FILE_URL}">`;
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('mockupMarkup', () => {
  it('puts the base after the doctype, so the page keeps standards mode', () => {
    expect(mockupMarkup(utf8('<!DOCTYPE html>\n<html><p>x</p></html>'), FILE_URL)).toBe(
      `<!DOCTYPE html>${BASE}\n<html><p>x</p></html>`,
    );
    // Comments and white space may come before a doctype.
    expect(mockupMarkup(utf8('\n<!-- board v2 -->\n<!doctype html><p>x</p>'), FILE_URL)).toBe(
      `\n<!-- board v2 -->\n<!doctype html>${BASE}<p>x</p>`,
    );
  });

  it('puts the base first in a page without a doctype', () => {
    expect(mockupMarkup(utf8('<html><p>x</p></html>'), FILE_URL)).toBe(`${BASE}<html><p>x</p></html>`);
  });

  it("keeps the meaning of the mockup's own base, resolved against its file", () => {
    const markup = mockupMarkup(utf8('<!doctype html><head><base href="../shared/"></head>'), FILE_URL);
    expect(markup).toBe(
      '<!doctype html><base href="file:///catalog/cases/board/v2/shared/"><head><base href="../shared/"></head>',
    );
  });

  it('escapes the URL in the attribute', () => {
    const markup = mockupMarkup(utf8('<p>x</p>'), 'file:///catalog/a&b/%22q%22.html');
    expect(markup).toBe('<base href="file:///catalog/a&amp;b/%22q%22.html"><p>x</p>');
  });

  it('decodes by byte-order mark, then by a meta charset, else as UTF-8', () => {
    const latin1 = Buffer.from('<meta charset="windows-1252"><p>caf\xe9</p>', 'latin1');
    expect(mockupMarkup(latin1, FILE_URL)).toContain('<p>café</p>');
    const httpEquiv = Buffer.from(
      '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>\xe0 la carte</p>',
      'latin1',
    );
    expect(mockupMarkup(httpEquiv, FILE_URL)).toContain('<p>à la carte</p>');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>naïve</p>', 'utf16le')]);
    expect(mockupMarkup(utf16, FILE_URL)).toBe(`${BASE}<p>naïve</p>`);
    expect(mockupMarkup(utf8('\ufeff<p>crème</p>'), FILE_URL)).toBe(`${BASE}<p>crème</p>`);
    // An unknown label falls back to UTF-8, as browsers do.
    expect(mockupMarkup(utf8('<meta charset="no-such-charset"><p>déjà</p>'), FILE_URL)).toContain('<p>déjà</p>');
  });
});

describe('markupMayRunScript', () => {
  it('finds every way markup runs script or opens a window of its own', () => {
    const scripted = [
      '<script src="game.js"></script>',
      '<SCRIPT>go()</SCRIPT>',
      '<svg><script>go()</script></svg>',
      '<body onload="go()">',
      '<img src=x.png/onerror=go()>',
      '<div ONCLICK\n= "go()">',
      '<a href="javascript:go()">play</a>',
      '<iframe srcdoc="<p>x</p>"></iframe>',
      '<frameset><frame src="a.html"></frameset>',
      '<object data="a.svg"></object>',
      '<embed src="a.swf">',
      '<meta http-equiv="Refresh" content="0; url=b.html">',
      '<meta content="1" http-equiv=refresh>',
    ];
    for (const markup of scripted) expect(markupMayRunScript(`<!doctype html>${markup}`), markup).toBe(true);
  });

  it('passes plain markup: styles, images, fonts, forms, and words that only look like handlers', () => {
    const plain = [
      '<link rel="stylesheet" href="site.css"><style>@font-face { src: url(a.woff2) }</style>',
      '<img src="board.png" alt="Board"><button type="button">Start</button><input value="on">',
      '<meta charset="utf-8"><meta name="viewport" content="width=device-width">',
      '<p>Buttons: Continue, Options. The description of the condition is here.</p>',
      '<div class="scripted-look" data-note="no script">x</div>',
    ];
    for (const markup of plain) expect(markupMayRunScript(`<!doctype html>${markup}`), markup).toBe(false);
  });
});

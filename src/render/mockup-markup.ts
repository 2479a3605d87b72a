// How far a browser looks for a <meta> naming the charset (the HTML prescan's limit).
const PRESCAN_BYTES = 1024;

const BOMS: Array<[bytes: number[], label: string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/**
 * The markup a tab writes into its frame to show a mockup, from the bytes of its HTML
 * file. Decoded as a browser would (byte-order mark, else a `<meta>` charset near the top,
 * else UTF-8), with a `<base>` placed first so relative URLs resolve against the file's
 * folder as they would had the browser opened the file. The base goes after any doctype,
 * which must stay the first thing in the document or the page renders in quirks mode. A
 * mockup's own `<base href>` keeps its meaning: ours carries its resolved URL.
 */
export function mockupMarkup(bytes: Uint8Array, fileUrl: string): string {
  const html = decodeHtml(bytes);
  const ownBase = /<base\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(html);
  let baseUrl = fileUrl;
  if (ownBase) {
    try {
      baseUrl = new URL((ownBase[1] ?? ownBase[2] ?? ownBase[3] ?? '').trim(), fileUrl).href;
    } catch {
      // An href no URL parser takes is ignored by browsers too.
    }
  }
  const base = `<base href="${baseUrl.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}">`;
  const doctype = /^\s*(?:<!--[\s\S]*?-->\s*)*<!doctype[^>]*>/i.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return html.slice(0, at) + base + html.slice(at);
}

function decodeHtml(bytes: Uint8Array): string {
  const label = bomLabel(bytes) ?? metaCharset(bytes) ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    // A charset this Node does not know: browsers fall back to their default too.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function bomLabel(bytes: Uint8Array): string | undefined {
  return BOMS.find(([bom]) => bom.every((byte, i) => bytes[i] === byte))?.[1];
}

function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, PRESCAN_BYTES)).toString('latin1');
  // <meta charset="x"> and <meta http-equiv="Content-Type" content="text/html; charset=x">.
  const found = /<meta\s[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
  // A page that declares UTF-16 in ASCII bytes is not UTF-16; browsers read it as UTF-8.
  return found?.startsWith('utf-16') ? 'utf-8' : found;
}

// Script elements and inline handlers, `javascript:` URLs, and whatever opens a window of its
// own inside the mockup's (nested frames, plugins, a refresh).
const MAY_RUN_SCRIPT =
  /<(?:script|iframe|frame|frameset|object|embed|portal|fencedframe)\b|\bon[a-z]+\s*=|javascript:|<meta\b[^>]*\bhttp-equiv\s*=\s*["']?\s*refresh/i;

/**
 * Whether a mockup's markup may run script in the window it is shown in, or leave anything
 * behind there that outlives its document (a timer, a global, a nested window). Errs towards
 * yes: text that merely reads like a handler (`on=`) counts, which costs only a new frame.
 */
export function markupMayRunScript(markup: string): boolean {
  return MAY_RUN_SCRIPT.test(markup);
}

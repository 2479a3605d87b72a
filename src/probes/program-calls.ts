/**
 * Call detection over a submitted program, as the probe's scenario checks need it: string
 * literal contents are removed first, so a call named inside a string never counts, and a
 * needle only matches on identifier boundaries, so `files.writeFileSync` or
 * `myfiles.writeFile` is not `files.writeFile`.
 */

const QUOTES = new Set(['"', "'", '`']);

/**
 * `text` with the contents of its `"…"`, `'…'` and `` `…` `` literals replaced by spaces (the
 * quotes stay, so offsets are unchanged). Backslash escapes are honoured. A `"` or `'` left
 * open ends at the line's end, so an apostrophe in a comment hides one line at most; a
 * backtick literal may span lines.
 */
export function stripStringLiterals(text: string): string {
  let out = '';
  // `kept` is where the text not yet copied starts; blanked runs are written as spaces.
  let kept = 0;
  let i = 0;
  while (i < text.length) {
    const open = nextQuote(text, i);
    if (open === -1) break;
    const quote = text[open]!;
    let j = open + 1;
    for (; j < text.length; j++) {
      const ch = text[j]!;
      if (ch === '\\') {
        if (j + 1 < text.length && text[j + 1] !== '\n') j++;
        continue;
      }
      if (ch === quote || (ch === '\n' && quote !== '`')) break;
    }
    // The contents run from open + 1 to j (exclusive); j is the closing quote, a newline or the end.
    out += text.slice(kept, open + 1) + ' '.repeat(j - open - 1);
    kept = j;
    i = j < text.length && text[j] === quote ? j + 1 : j;
  }
  return out + text.slice(kept);
}

function nextQuote(text: string, from: number): number {
  let best = -1;
  for (const quote of QUOTES) {
    const at = text.indexOf(quote, from);
    if (at !== -1 && (best === -1 || at < best)) best = at;
  }
  return best;
}

/** The needle of an arm's spelling: its last two segments (`gg::files::write_file` → `files::write_file`). */
export function callNeedle(spelling: string): string {
  const separator = spelling.includes('::') ? '::' : '.';
  return spelling.split(separator).slice(-2).join(separator);
}

const IDENTIFIER = /[A-Za-z0-9_$]/;

/** Start offsets of `needle` in `text` where neither neighbour continues an identifier (or a path, before it). */
export function needleOffsets(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    const before = at > 0 ? text[at - 1]! : '';
    const after = text[at + needle.length] ?? '';
    if (IDENTIFIER.test(before) || IDENTIFIER.test(after)) continue;
    found.push(at);
  }
  return found;
}

export const hasCall = (stripped: string, spelling: string) => needleOffsets(stripped, callNeedle(spelling)).length > 0;

/**
 * `stripped` with the argument list of every `spelling(…)` call blanked, brackets balanced,
 * so what a call's arguments name (`views.openDocsView(shell.shell)`) is not read as a call.
 */
export function blankCallArguments(stripped: string, spelling: string): string {
  const out = stripped.split('');
  const needle = callNeedle(spelling);
  for (const at of needleOffsets(stripped, needle)) {
    let i = at + needle.length;
    while (i < stripped.length && /\s/.test(stripped[i]!)) i++;
    if (stripped[i] !== '(') continue;
    let depth = 0;
    for (; i < stripped.length; i++) {
      const ch = stripped[i]!;
      if (ch === '(') depth++;
      else if (ch === ')') depth--;
      if (depth === 0) break;
      if (depth > 0 && ch !== '(') out[i] = ' ';
    }
  }
  return out.join('');
}

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
  const out = text.split('');
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote === null) {
      if (QUOTES.has(ch)) quote = ch;
      continue;
    }
    if (ch === '\\') {
      out[i] = ' ';
      if (i + 1 < text.length && text[i + 1] !== '\n') out[++i] = ' ';
      continue;
    }
    if (ch === quote) {
      quote = null;
      continue;
    }
    if (ch === '\n' && quote !== '`') {
      quote = null;
      continue;
    }
    out[i] = ' ';
  }
  return out.join('');
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

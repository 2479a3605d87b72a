import { HttpError } from '../errors.js';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Real bodies (run records,
 * relayed events, gg configurations) stay within a few dozen levels; thousands would
 * overflow the stack of every recursive walk that later meets the value (serializers,
 * key converters), so they are refused before parsing.
 */
export const MAX_JSON_DEPTH = 128;

/** The 400 a body nesting deeper than MAX_JSON_DEPTH gets; routes that must react to an unreadable body recognise it. */
export class JsonTooDeepError extends HttpError {
  constructor() {
    super('bad_request', `The JSON body nests objects and arrays deeper than the limit of ${MAX_JSON_DEPTH} levels.`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the JSON text nests objects and arrays deeper than `limit`. One loop over the
 * characters with a counter (no recursion, no parse), skipping string contents, so it
 * answers for any input in linear time and constant stack.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

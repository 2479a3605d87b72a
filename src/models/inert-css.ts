/**
 * What CSS a logo may carry. SVG reads CSS in `style` attributes and in presentation
 * attributes (`fill`, `mask`, ...); a value that can name something outside the document
 * (`url(https://…)`, `image-set(…)`, `@import`) would make every browser showing the logo
 * fetch it. Escapes (`u\72l(`) and comments (`u/**\/rl(`) let such a value past any check
 * of its spelling, so values are judged by an allow-list: no escape, no comment, and no
 * function but a few colour and transform functions and `url(#id)`.
 */

/** Functions a value may call; `url` only with an in-document `#id`. */
const FUNCTIONS: ReadonlySet<string> = new Set([
  'rgb', 'rgba', 'hsl', 'hsla', 'url',
  'matrix', 'translate', 'translatex', 'translatey', 'scale', 'scalex', 'scaley', 'rotate', 'skewx', 'skewy',
]);
/** Each function call (or bare parenthesis) in a value, with the name before it. */
const CALL = /([A-Za-z0-9_-]*)\s*\(/g;
const LOCAL_URL = /^url\(\s*(['"]?)#[A-Za-z0-9_.:-]+\1\s*\)/i;

/** Properties a `style` attribute may set: SVG presentation, nothing that loads or lays out a page. */
const STYLE_PROPERTIES: ReadonlySet<string> = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap', 'stroke-linejoin',
  'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'opacity', 'color', 'stop-color', 'stop-opacity',
  'clip-path', 'clip-rule', 'mask', 'display', 'visibility', 'mix-blend-mode', 'isolation', 'paint-order',
  'shape-rendering', 'vector-effect', 'transform', 'transform-origin', 'font-family', 'font-size', 'font-weight',
  'font-style', 'text-anchor', 'dominant-baseline', 'letter-spacing',
]);
const DECLARATION = /^\s*([A-Za-z-]+)\s*:(.*)$/s;

/** True when a CSS-bearing value can load nothing: no escape, comment or at-rule, and only allowed functions. */
export function isInertCss(value: string): boolean {
  if (/[\\@]|\/\*/.test(value)) return false;
  for (const call of value.matchAll(CALL)) {
    const name = call[1]!.toLowerCase();
    if (!FUNCTIONS.has(name)) return false;
    if (name === 'url' && !LOCAL_URL.test(value.slice(call.index))) return false;
  }
  return true;
}

/**
 * A `style` attribute cut down to its allowed declarations (see STYLE_PROPERTIES and
 * isInertCss), or null when none is left.
 */
export function inertStyle(style: string): string | null {
  const kept: string[] = [];
  for (const part of style.split(';')) {
    const declaration = DECLARATION.exec(part);
    if (!declaration) continue;
    const [, property, value] = declaration;
    if (STYLE_PROPERTIES.has(property!.toLowerCase()) && value!.trim() !== '' && isInertCss(value!)) kept.push(`${property!.toLowerCase()}:${value!.trim()}`);
  }
  const joined = kept.join(';');
  return joined !== '' && isInertCss(joined) ? joined : null;
}

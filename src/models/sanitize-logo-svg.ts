import createDOMPurify, { type DOMPurify } from 'dompurify';
import { JSDOM } from 'jsdom';
import { unprocessable } from '../errors.js';
import { inertStyle, isInertCss } from './inert-css.js';

let purifier: DOMPurify | undefined;

/**
 * One DOMPurify over one jsdom window, built on first use: the window costs tens of
 * milliseconds, a sanitize well under one.
 */
function svgPurifier(): DOMPurify {
  if (purifier) return purifier;
  const created = createDOMPurify(new JSDOM('').window as unknown as Parameters<typeof createDOMPurify>[0]);
  // References may only point inside the document (`#id`), and CSS only to `url(#id)`: a
  // logo loads nothing from anywhere (see inert-css.ts).
  created.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName.toLowerCase();
    const value = data.attrValue.trim();
    if ((name === 'href' || name === 'xlink:href' || name === 'src') && !value.startsWith('#')) data.keepAttr = false;
    else if (name === 'style') {
      const style = inertStyle(value);
      if (style === null) data.keepAttr = false;
      else data.attrValue = style;
    } else if (!isInertCss(value)) data.keepAttr = false;
  });
  purifier = created;
  return created;
}

/**
 * Sanitizes SVG markup a client sent (or a logo library served) with DOMPurify's SVG
 * profile: scripts, event handlers, `foreignObject`, style sheets and any reference out of
 * the document are removed, and a `style` attribute keeps only inert presentation
 * declarations. A DOCTYPE or ENTITY declaration is refused outright (422), as
 * is markup whose root is not one `<svg>` element. `field` names the input in messages.
 */
export function sanitizeLogoSvg(markup: string, field = 'logoSvg'): string {
  if (/<!DOCTYPE|<!ENTITY/i.test(markup)) {
    throw unprocessable(`${field} must not carry a DOCTYPE or ENTITY declaration.`);
  }
  const fragment = svgPurifier().sanitize(markup.replace(/^\s*<\?xml[^>]*\?>/, ''), {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['foreignObject', 'script', 'style'],
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  type Node = { nodeType: number; textContent: string | null; localName?: string; outerHTML?: string };
  const roots = ([...fragment.childNodes] as Node[]).filter((node) => node.nodeType !== 3 || node.textContent?.trim());
  const root = roots[0];
  if (roots.length !== 1 || root?.nodeType !== 1 || root.localName !== 'svg' || root.outerHTML === undefined) {
    throw unprocessable(`${field} must be SVG markup with a single <svg> root element.`);
  }
  return root.outerHTML;
}

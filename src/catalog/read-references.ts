import type { CheckAction, CheckEntry, ProofEntry, ReferenceEntry } from './resolved-version.js';
import { extensionOf, mediaKindOf } from './media-kind.js';
import type { FieldReader } from './toml-fields.js';
import type { VersionFolder } from './version-folder.js';

/** Where a version's reference media live: shared by every variant, or one variant's own. */
export const COMMON_SCOPE = '_common';

export interface Viewport {
  width: number;
  height: number;
}

/** An HTML mockup the renderer turns into `references/<scope>/<outFile>` in the store. */
export interface ReferenceToRender {
  view: string;
  scope: string;
  /** The mockup, relative to the version folder (and to the store copy of it). */
  htmlPath: string;
  outFile: string;
  /** The case's declared viewport, or null for the renderer's default. */
  viewport: Viewport | null;
}

/** A static image or video reference, copied to `references/<scope>/<outFile>` at ingest. */
export interface StaticReference {
  view: string;
  scope: string;
  kind: 'image' | 'video';
  mediaPath: string;
  outFile: string;
}

export interface ReadReferences {
  entries: ReferenceEntry[];
  toRender: ReferenceToRender[];
  staticMedia: StaticReference[];
}

// A view becomes a file name in the store and a URL segment.
const VIEW_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function referenceMediaUrl(slug: string, version: string, scope: string, file: string): string {
  return `/test-cases/${slug}/versions/${version}/references/${scope}/${file}`;
}

/** `[viewport]` / `[stage]` width and height, or a reference's own `viewport = {...}`. */
export function readViewport(reader: FieldReader, key: string): Viewport | null {
  const table = reader.optionalTable(key);
  if (!table) return null;
  const width = table.optionalNumber('width');
  const height = table.optionalNumber('height');
  if (width === undefined || height === undefined || !Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw table.fail('"width" and "height" must be positive integers (CSS pixels)');
  }
  return { width, height };
}

/**
 * `[[reference]] view` plus exactly one of `path` (an HTML mockup rendered to PNG) or `media`
 * (an image or video copied as is).
 */
export async function readReferences(
  reader: FieldReader,
  folder: VersionFolder,
  where: { slug: string; version: string; scope: string; viewport: Viewport | null },
): Promise<ReadReferences> {
  const result: ReadReferences = { entries: [], toRender: [], staticMedia: [] };
  const views = new Set<string>();
  for (const entry of reader.tables('reference')) {
    const view = entry.string('view');
    if (!VIEW_PATTERN.test(view)) throw entry.fail(`"view" must be letters, digits, "-" or "_", got "${view}"`);
    if (views.has(view)) throw entry.fail(`view "${view}" is declared twice`);
    views.add(view);
    const path = entry.optionalString('path');
    const media = entry.optionalString('media');
    if ((path === undefined) === (media === undefined)) throw entry.fail('declare exactly one of "path" or "media"');
    if (path !== undefined) {
      const htmlPath = folder.key(path, entry, 'path');
      if (!/\.html?$/i.test(htmlPath)) throw entry.fail(`"path" must name an HTML mockup, got "${path}"`);
      await folder.requireFile(htmlPath, entry, 'path');
      const outFile = `${view}.png`;
      result.entries.push({ view, kind: 'rendered', mediaUrl: referenceMediaUrl(where.slug, where.version, where.scope, outFile) });
      result.toRender.push({ view, scope: where.scope, htmlPath, outFile, viewport: readViewport(entry, 'viewport') ?? where.viewport });
    } else {
      const mediaPath = folder.key(media!, entry, 'media');
      const kind = mediaKindOf(mediaPath);
      if (kind !== 'image' && kind !== 'video') throw entry.fail(`"media" must be an image or a video, got "${media}"`);
      await folder.requireFile(mediaPath, entry, 'media');
      const outFile = `${view}.${extensionOf(mediaPath)}`;
      result.entries.push({ view, kind, mediaUrl: referenceMediaUrl(where.slug, where.version, where.scope, outFile) });
      result.staticMedia.push({ view, scope: where.scope, kind, mediaPath, outFile });
    }
  }
  return result;
}

/** `[[proof]] id, name, dest`: evidence the build must write; kind from the extension. */
export function readProofs(reader: FieldReader, folder: VersionFolder): ProofEntry[] {
  const ids = new Set<string>();
  return reader.tables('proof').map((entry) => {
    const id = entry.string('id');
    if (ids.has(id)) throw entry.fail(`proof "${id}" is declared twice`);
    ids.add(id);
    const dest = folder.key(entry.string('dest'), entry, 'dest');
    const kind = mediaKindOf(dest);
    if (!kind) throw entry.fail(`"dest" must be an image, a video or a .json.gz replay, got "${dest}"`);
    return { id, name: entry.optionalString('name') ?? id, dest, kind };
  });
}

/** `[[check]] view, name?, reference?, actions`: `name` and the reference default to the view. */
export function readChecks(manifest: FieldReader): CheckEntry[] {
  return manifest.tables('check').map((entry) => {
    const view = entry.string('view');
    return {
      view,
      name: entry.optionalString('name') ?? view,
      referenceView: entry.optionalString('reference') ?? view,
      actions: entry.tables('actions').map(readAction),
    };
  });
}

function readAction(action: FieldReader): CheckAction {
  const type = action.string('type');
  const count = (key: string) => {
    const value = action.optionalNumber(key);
    if (value === undefined || !Number.isInteger(value) || value < 0) throw action.fail(`"${key}" must be a whole number of milliseconds`);
    return value;
  };
  const coordinate = (key: string) => {
    const value = action.optionalNumber(key);
    if (value === undefined) throw action.fail(`"${key}" is required (logical pixels)`);
    return value;
  };
  switch (type) {
    case 'wait': return { type, ms: count('ms') };
    case 'key': return { type, key: action.string('key') };
    case 'hold': return { type, key: action.string('key'), ms: count('ms') };
    case 'click': return { type, x: coordinate('x'), y: coordinate('y') };
    default: throw action.fail(`unknown action type "${type}" (expected wait, key, hold or click)`);
  }
}

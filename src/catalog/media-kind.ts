import type { MediaKind } from './resolved-version.js';

const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'avif']);
const VIDEO = new Set(['mp4', 'webm', 'mov', 'm4v']);
const REPLAY = 'json.gz';

/** Lower-case extension without the dot; `.json.gz` counts as one extension. */
export function extensionOf(file: string): string {
  const name = file.slice(file.lastIndexOf('/') + 1).toLowerCase();
  if (name.endsWith(`.${REPLAY}`)) return REPLAY;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1) : '';
}

/** What a media file holds, from its extension: image, video, or a gzipped replay. */
export function mediaKindOf(file: string): MediaKind | undefined {
  const extension = extensionOf(file);
  if (IMAGE.has(extension)) return 'image';
  if (VIDEO.has(extension)) return 'video';
  if (extension === REPLAY) return 'replay';
  return undefined;
}

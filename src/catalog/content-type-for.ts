const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  json: 'application/json',
  'json.gz': 'application/gzip',
  gz: 'application/gzip',
  md: 'text/markdown; charset=utf-8',
  // Templates are served verbatim for runners to render; they are not HTML.
  hbs: 'text/plain; charset=utf-8',
  // Program sources are data here, never scripts for a browser to run from our origin.
  ts: 'text/plain; charset=utf-8',
  mts: 'text/plain; charset=utf-8',
  js: 'text/plain; charset=utf-8',
  mjs: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  toml: 'text/plain; charset=utf-8',
  wav: 'audio/wav',
};

/** Content-Type for a stored file, from its extension (`.json.gz` is one extension). */
export function contentTypeFor(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name.endsWith('.json.gz')) return TYPES['json.gz']!;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return 'application/octet-stream';
  return TYPES[name.slice(dot + 1)] ?? 'application/octet-stream';
}

/**
 * The published wire-contract schemas as files: `schemas/` in the repository holds them for
 * client authors, and a test checks they match what the service serves.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishedSchema, publishedSchemaNames } from '../contract/published.js';

export const SCHEMA_FILE_SUFFIX = '.schema.json';

/** The text each published schema has in `schemas/`: what `GET /schemas/<name>.schema.json` serves. */
export function publishedSchemaFiles(): Map<string, string> {
  return new Map(publishedSchemaNames().map((name) => [`${name}${SCHEMA_FILE_SUFFIX}`, `${JSON.stringify(publishedSchema(name), null, 2)}\n`]));
}

export function writePublishedSchemas(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = publishedSchemaFiles();
  for (const stale of readdirSync(dir).filter((file) => file.endsWith(SCHEMA_FILE_SUFFIX) && !files.has(file))) rmSync(join(dir, stale));
  for (const [file, text] of files) writeFileSync(join(dir, file), text);
  return [...files.keys()];
}

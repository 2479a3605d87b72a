/**
 * `npm run docs`: rewrites the generated reference pages (docs/configuration.md, docs/cli.md)
 * from the source. Run it after changing a variable or a command and commit the result;
 * test/docs/reference-pages.test.ts fails until then.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referencePages } from './reference-pages.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '../../..');
for (const [path, text] of referencePages()) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}

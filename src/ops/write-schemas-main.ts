/**
 * `npm run schemas`: rewrites `schemas/` from the route schemas. Run it after changing a
 * published shape and commit the result; `test/ops/published-schemas.test.ts` fails until then.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePublishedSchemas } from './write-published-schemas.js';

const dir = join(fileURLToPath(new URL('.', import.meta.url)), '../../../schemas');
for (const file of writePublishedSchemas(dir)) console.log(`wrote schemas/${file}`);

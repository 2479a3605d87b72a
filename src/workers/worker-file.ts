import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WORKER_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Absolute path of the compiled module of the worker `name` (a file in src/workers/), for
 * Piscina. Worker threads on Node 20 cannot load TypeScript, so even under vitest, which runs
 * this file from its `.ts` source, the workers come from `dist/`: `npm run build`
 * (`tsc -p tsconfig.build.json`) must have run, and `npm test` does so first.
 */
export function workerFile(name: string): string {
  if (!WORKER_NAME.test(name)) throw new Error(`Worker name must be kebab-case, got ${JSON.stringify(name)}.`);
  const here = import.meta.url;
  // Compiled: this file is dist/src/workers/worker-file.js, the worker its sibling.
  if (here.endsWith('.js')) return fileURLToPath(new URL(`./${name}.js`, here));
  // Sources: this file is src/workers/worker-file.ts; the build mirrors src/ under dist/.
  const compiled = fileURLToPath(new URL(`../../dist/src/workers/${name}.js`, here));
  if (!existsSync(compiled)) {
    throw new Error(
      `The compiled worker ${compiled} is missing. Run \`npm run build\` (tsc -p tsconfig.build.json) first.`,
    );
  }
  return compiled;
}

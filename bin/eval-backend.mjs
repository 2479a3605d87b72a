#!/usr/bin/env node
// `eval-backend`: the command line (src/cli/). Runs the compiled CLI, compiling it first
// (through the same bootstrap as `npm start`) when dist/ is missing or older than src/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'cli', 'main.js');

if (!existsSync(entry) || statSync(entry).mtimeMs < newestSource(join(root, 'src'))) {
  // The bootstrap's own output goes to stderr, so stdout stays the command's.
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'bootstrap.mjs'), 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) process.exit(2);
}

const { runCli } = await import(pathToFileURL(entry).href);
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;

function newestSource(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

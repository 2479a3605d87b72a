import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLE_NAMES } from '../../src/config-variables.js';
import { cliCommands } from '../../src/docs/cli-page.js';
import { docFiles, fencedBlocks, readDoc, ROOT } from './markdown-blocks.js';

/** Upper-case names with an underscore that the docs use and that are not environment variables. */
const NOT_VARIABLES = new Set([
  'SQLITE_FULL', 'SQLITE_IOERR_', 'RUN_RECORD_FORMAT', 'FILES_UNDER_DATA_DIR', 'TEST_ENGINE',
  // A shell variable the quick start sets itself.
  'TOKEN',
]);
/** Words a fenced block's info string may carry after its language. */
const MARKERS = new Set(['quickstart', 'quickstart-service', 'example']);

const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
const listed = (file: string) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^\s*\['([a-z0-9-]+)', /gm)].map((match) => match[1]!);

describe('names in README.md and docs/', () => {
  it('every environment variable a page names exists', () => {
    const unknown: string[] = [];
    for (const file of docFiles()) {
      const text = readDoc(file);
      const named = new Set([
        ...[...text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+_?\b/g)].map((match) => match[0]),
        ...fencedBlocks(file).flatMap((block) => [...block.text.matchAll(/(?:^|\s)([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!)),
      ]);
      for (const name of named) if (!ENV_VARIABLE_NAMES.has(name) && !NOT_VARIABLES.has(name)) unknown.push(`${file}: ${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it('every eval-backend command a page names exists', () => {
    const commands = cliCommands().map(({ path }) => path.join(' '));
    const unknown: string[] = [];
    for (const file of docFiles()) {
      for (const match of readDoc(file).matchAll(/eval-backend ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
        const [first, second] = [match[1]!, match[2]];
        const ok = commands.includes(first) || (second !== undefined && commands.includes(`${first} ${second}`));
        if (!ok) unknown.push(`${file}: ${match[0]}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every npm script, benchmark and chaos scenario a page names exists', () => {
    const benches = listed('bench/run-all.ts');
    const scenarios = listed('chaos/run-all.ts');
    expect(benches.length).toBeGreaterThan(5);
    expect(scenarios.length).toBeGreaterThan(5);
    const unknown: string[] = [];
    for (const file of docFiles()) {
      const text = readDoc(file);
      for (const match of text.matchAll(/npm run ([a-z][a-z-]*)/g)) if (!scripts.includes(match[1]!)) unknown.push(`${file}: ${match[0]}`);
      for (const match of text.matchAll(/npm run bench -- ([a-z][a-z-]*)/g)) if (!benches.includes(match[1]!)) unknown.push(`${file}: ${match[0]}`);
      for (const match of text.matchAll(/npm run chaos -- ([a-z][a-z-]*)/g)) if (!scenarios.includes(match[1]!)) unknown.push(`${file}: ${match[0]}`);
      for (const match of text.matchAll(/npm test -- (test\/[\w./-]+\.test\.ts)/g)) {
        try { readFileSync(join(ROOT, match[1]!)); } catch { unknown.push(`${file}: ${match[0]}`); }
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every command block is marked for what it is: a quick-start step, an example for another machine, or runnable here', () => {
    const bad = docFiles().flatMap((file) => fencedBlocks(file))
      .filter((block) => block.info.slice(1).some((word) => !MARKERS.has(word)))
      .map((block) => `${block.file}: \`\`\`${block.info.join(' ')}`);
    expect(bad).toEqual([]);
    const readmeSteps = fencedBlocks('README.md').filter((block) => block.info[1]?.startsWith('quickstart'));
    expect(readmeSteps.length).toBeGreaterThanOrEqual(5);
    const elsewhere = docFiles().filter((file) => file !== 'README.md').flatMap((file) => fencedBlocks(file)).filter((block) => block.info[1]?.startsWith('quickstart'));
    expect(elsewhere, 'quick-start steps belong in README.md, where the test runs them').toEqual([]);
  });

  it('README.md stays a front page', () => {
    const readme = readDoc('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('npm start');
    for (const match of readme.matchAll(/\]\((docs\/[\w-]+\.md)/g)) expect(docFiles(), match[1]).toContain(match[1]);
  });
});

/**
 * docs/cli.md, generated from the commander definitions of `eval-backend` (src/cli/main.ts),
 * so a new option or command reaches the reference without anyone writing it twice.
 */
import type { Command, Option } from 'commander';
import { cliProgram } from '../cli/main.js';
import { DEFAULT_URL } from '../cli/cli-io.js';
import { GENERATED_NOTICE, cell } from './markdown.js';

/** Every runnable command as its words after `eval-backend` (`['store', 'copy']`), with its definition. */
export function cliCommands(): { path: string[]; command: Command }[] {
  const { program } = cliProgram(silentIo());
  const found: { path: string[]; command: Command }[] = [];
  const walk = (command: Command, path: string[]) => {
    if (command.commands.length === 0) found.push({ path, command });
    for (const child of command.commands) walk(child, [...path, child.name()]);
  };
  for (const command of program.commands) walk(command, [command.name()]);
  return found;
}

export function renderCliPage(): string {
  const { program } = cliProgram(silentIo());
  const lines = [
    '# The command line: `eval-backend`',
    '',
    GENERATED_NOTICE,
    '',
    program.description(),
    '',
    'Run it as `npx eval-backend …` in a checkout, or as `eval-backend` after `npm install -g` of the checkout. It compiles itself on first use.',
    '',
    `Commands that talk to the service take \`--url\` (default \`${DEFAULT_URL}\`, or \`EVAL_BACKEND_URL\`). \`accounts add\` and \`store copy\` work on the store directly and take no \`--url\`.`,
    '',
    '| Command | What it does |',
    '|---|---|',
    ...cliCommands().map(({ path, command }) => `| [\`eval-backend ${path.join(' ')}\`](#${anchor(path)}) | ${cell(command.description())} |`),
    '',
    '## Exit status',
    '',
    '| Code | Meaning |',
    '|---|---|',
    '| 0 | Everything worked. |',
    '| 1 | The service answered and something it did failed: a version did not ingest or the scan aborted, the username to add is taken, or a copied table differs from its source. |',
    '| 2 | The service could not be reached or refused the call, or the arguments were wrong. |',
  ];
  for (const { path, command } of cliCommands()) {
    lines.push('', `## eval-backend ${path.join(' ')}`, '', command.description(), '', '```text', `eval-backend ${path.join(' ')} ${command.usage()}`, '```');
    const rows = [
      ...command.registeredArguments.map((argument) => `| \`<${argument.name()}>\` | ${cell(argument.description)} |`),
      ...command.options.map((option) => `| \`${option.flags}\` | ${cell(optionText(option))} |`),
    ];
    if (rows.length > 0) lines.push('', '| Argument or option | What it does |', '|---|---|', ...rows);
  }
  return `${lines.join('\n')}\n`;
}

function optionText(option: Option): string {
  const notes = [
    option.mandatory ? 'required' : null,
    option.defaultValue !== undefined && !option.negate ? `default \`${String(option.defaultValue)}\`` : null,
    option.envVar ? `or \`${option.envVar}\`` : null,
  ].filter((note) => note !== null);
  return notes.length > 0 ? `${option.description} (${notes.join(', ')})` : option.description;
}

/** The anchor GitHub gives the heading `eval-backend <path>`. */
function anchor(path: string[]): string {
  return `eval-backend-${path.join('-')}`;
}

/** Definitions only: nothing is parsed or run, so nothing is written. */
function silentIo() {
  const sink = { write: () => true } as unknown as NodeJS.WritableStream;
  return { stdout: sink, stderr: sink, env: {}, cwd: process.cwd(), signal: new AbortController().signal };
}

/**
 * docs/configuration.md, generated from the environment table (src/config-variables.ts), so a
 * default or a new variable is written once, in the code that reads it.
 */
import { ENV_VARIABLES, type EnvVariable, type Reader, type VariableGroup } from '../config-variables.js';
import { GENERATED_NOTICE, cell } from './markdown.js';

const READER_NAMES: Record<Reader, string> = {
  api: 'API',
  worker: 'worker',
  auth: 'auth service',
  supervisor: 'supervisor',
  cli: 'CLI',
  tests: 'tests',
  benchmarks: 'benchmarks',
};

export function renderConfigurationPage(): string {
  const groups = new Map<VariableGroup, EnvVariable[]>();
  for (const variable of ENV_VARIABLES) groups.set(variable.group, [...(groups.get(variable.group) ?? []), variable]);
  const lines = [
    '# Configuration',
    '',
    GENERATED_NOTICE,
    '',
    'Every process reads its environment once at start and checks it. A bad value stops the process with a message naming the variable. An empty value counts as unset.',
    '',
    '"Read by" names the processes that use a variable: the API process, `npm run worker`, the auth service (`npm run auth`, or started by `npm start`), the supervisor `npm start` runs, and the `eval-backend` command. `npm start` passes its environment on to the processes it starts.',
    '',
    ...[...groups.keys()].map((group) => `- [${group}](#${anchor(group)})`),
  ];
  for (const [group, variables] of groups) {
    lines.push('', `## ${group}`, '', '| Variable | Default | Read by | What it does |', '|---|---|---|---|');
    for (const variable of variables) {
      const fallback = variable.default !== null ? `\`${variable.default}\`` : `unset: ${variable.unset ?? 'nothing'}`;
      lines.push(`| \`${variable.name}\` | ${cell(fallback)} | ${variable.readers.map((reader) => READER_NAMES[reader]).join(', ')} | ${cell(variable.does)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The anchor GitHub gives a heading: lower case, spaces to dashes, punctuation dropped. */
export function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
}

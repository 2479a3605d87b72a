import type { LAUNCHABLE_HARNESSES } from '../contract/jobs.js';

/** The name a console shows for each launchable harness, keyed by its slug. */
export const HARNESS_NAMES: Record<(typeof LAUNCHABLE_HARNESSES)[number], string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  cline: 'Cline',
  antigravity: 'Antigravity',
  goose: 'Goose',
  kilo: 'Kilo Code',
  opencode: 'OpenCode',
  pi: 'Pi',
  gg: 'gg',
};

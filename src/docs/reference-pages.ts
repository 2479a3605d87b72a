/** The generated pages under docs/, by path from the repository root: what `npm run docs` writes and the drift test compares. */
import { renderCliPage } from './cli-page.js';
import { renderConfigurationPage } from './configuration-page.js';

export function referencePages(): Map<string, string> {
  return new Map([
    ['docs/configuration.md', renderConfigurationPage()],
    ['docs/cli.md', renderCliPage()],
  ]);
}

/**
 * Which catalog checkout a scan reads, as the store records it (`store_meta`
 * `catalog_checkout`): a whole-catalog scan from another checkout is refused unless forced,
 * so a machine that scans the examples beside its code (CATALOG_DIR left at its default)
 * cannot replace a deployment's catalog. A checkout inside a git work tree with a remote is
 * known by that remote and its folder in the repository, so the same repository cloned to
 * another path (another machine) is the same checkout; anything else by its absolute path.
 * The commit is recorded too, for the reader, and never compared: every pull moves it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SECOND } from '../time.js';

const run = promisify(execFile);
/** git answers these from local files; a slow or absent git only costs the remote. */
const GIT_TIMEOUT_MS = 5 * SECOND;

export interface CheckoutIdentity {
  /** What two scans are compared by: `<remote>#<folder in the repository>`, or the absolute path. */
  key: string;
  path: string;
  remote: string | null;
  commit: string | null;
}

async function git(cwd: string, ...args: string[]): Promise<string | null> {
  try {
    const { stdout } = await run('git', args, { cwd, timeout: GIT_TIMEOUT_MS, encoding: 'utf8' });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

/** The identity of the checkout at `catalogDir` (an absolute path). */
export async function checkoutIdentity(catalogDir: string): Promise<CheckoutIdentity> {
  const remote = await git(catalogDir, 'config', '--get', 'remote.origin.url');
  const folder = remote === null ? null : await git(catalogDir, 'rev-parse', '--show-prefix');
  const commit = await git(catalogDir, 'rev-parse', 'HEAD');
  return { key: remote === null ? catalogDir : `${remote}#${(folder ?? '').replace(/\/$/, '')}`, path: catalogDir, remote, commit };
}

/** The recorded identity, or null when none was recorded (a store last scanned by an older build) or it is unreadable. */
export function parseCheckoutIdentity(text: string | null): CheckoutIdentity | null {
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as Partial<CheckoutIdentity>;
    return typeof parsed.key === 'string' && typeof parsed.path === 'string'
      ? { key: parsed.key, path: parsed.path, remote: parsed.remote ?? null, commit: parsed.commit ?? null }
      : null;
  } catch {
    return null;
  }
}

/** How a refusal names a checkout. */
export const describeCheckout = ({ path, remote, commit }: CheckoutIdentity) =>
  `${path}${remote === null ? '' : ` (${remote}${commit === null ? '' : ` at ${commit.slice(0, 12)}`})`}`;

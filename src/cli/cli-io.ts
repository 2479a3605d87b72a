/** Where a command writes, what it reads of its surroundings, and how it is stopped: the process's own, or a test's. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  /** Where a command reads a secret it must not take as an argument (a password). */
  stdin?: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on SIGINT (or by a test): long-running commands end cleanly. */
  signal: AbortSignal;
}

/** Exit codes: what CI steps branch on. */
export const EXIT = {
  ok: 0,
  /** The service answered, and something in what it did failed (a version did not ingest). */
  failed: 1,
  /** The service could not be reached or refused the call, or the arguments were wrong. */
  unusable: 2,
} as const;

/** A failure that ends the command with `EXIT.unusable` and one line on stderr. */
export class UnusableError extends Error {
  override readonly name = 'UnusableError';
}

export const DEFAULT_URL = 'http://127.0.0.1:8787';

/** Plain lines when the output is not a terminal or a CI runner set `CI`; a progress bar otherwise. */
export function wantsPlainOutput(io: CliIo): boolean {
  const ci = io.env.CI;
  return !io.stdout.isTTY || (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0');
}

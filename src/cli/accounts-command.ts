import { join, resolve } from 'node:path';
import { addAccount, newAccountProblem } from '../auth/add-account.js';
import { authStoreLocation, openAuthStore, type AuthStoreLocation } from '../auth/auth-store.js';
import { ConfigError, loadConfig } from '../config.js';
import { EXIT, UnusableError, type CliIo } from './cli-io.js';

export interface AddAccountOptions {
  displayName?: string;
  dataDir?: string;
}

/**
 * `eval-backend accounts add <username>`: makes an account in the auth service's store
 * (`DATA_DIR/auth.sqlite` on the host it runs on, or AUTH_DATABASE_URL's database), the way in when REGISTRATION=closed. The
 * password is the first line of standard input, never an argument a shell history keeps.
 */
export async function addAccountCommand(username: string, options: AddAccountOptions, io: CliIo): Promise<number> {
  const password = await firstLine(io);
  const account = { username, password, displayName: options.displayName ?? username };
  const problem = newAccountProblem(account);
  if (problem) throw new UnusableError(problem);
  const store = await openAuthStore(storeLocation(options, io));
  try {
    const added = await addAccount(store, account);
    if (!added) {
      io.stderr.write(`eval-backend: the username ${username} is taken.\n`);
      return EXIT.failed;
    }
    io.stdout.write(`Added account ${added.username} (${added.id}).\n`);
    return EXIT.ok;
  } finally {
    await store.db.destroy();
  }
}

/** `--data-dir`'s SQLite file when given, else the store the auth service's configuration names. */
function storeLocation(options: AddAccountOptions, io: CliIo): AuthStoreLocation {
  if (options.dataDir) return { file: join(resolve(io.cwd, options.dataDir), 'auth.sqlite') };
  try {
    return authStoreLocation(loadConfig(io.env, io.cwd));
  } catch (error) {
    throw new UnusableError(error instanceof ConfigError ? error.message : String(error));
  }
}

/** The first line of standard input, without its line ending. */
async function firstLine(io: CliIo): Promise<string> {
  if (!io.stdin) throw new UnusableError('the password is read from standard input, and there is none.');
  let text = '';
  for await (const chunk of io.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}

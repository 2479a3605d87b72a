import { join, resolve } from 'node:path';
import { addAccount, newAccountProblem } from '../auth/add-account.js';
import { AUTH_MIGRATIONS } from '../auth/server.js';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/open-database.js';
import { EXIT, UnusableError, type CliIo } from './cli-io.js';

export interface AddAccountOptions {
  displayName?: string;
  dataDir?: string;
}

/**
 * `eval-backend accounts add <username>`: makes an account in the auth service's store
 * (`DATA_DIR/auth.sqlite`) on the host it runs on, the way in when REGISTRATION=closed. The
 * password is the first line of standard input, never an argument a shell history keeps.
 */
export async function addAccountCommand(username: string, options: AddAccountOptions, io: CliIo): Promise<number> {
  const password = await firstLine(io);
  const account = { username, password, displayName: options.displayName ?? username };
  const problem = newAccountProblem(account);
  if (problem) throw new UnusableError(problem);
  const db = openDatabase(join(dataDir(options, io), 'auth.sqlite'), AUTH_MIGRATIONS);
  try {
    const added = await addAccount(db, account);
    if (!added) {
      io.stderr.write(`eval-backend: the username ${username} is taken.\n`);
      return EXIT.failed;
    }
    io.stdout.write(`Added account ${added.username} (${added.id}).\n`);
    return EXIT.ok;
  } finally {
    db.close();
  }
}

function dataDir(options: AddAccountOptions, io: CliIo): string {
  if (options.dataDir) return resolve(io.cwd, options.dataDir);
  try {
    return loadConfig(io.env, io.cwd).dataDir;
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

import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_URL, EXIT, UnusableError, type CliIo } from './cli-io.js';
import { ingestCommand } from './ingest-command.js';
import { statusCommand } from './status-command.js';
import { watchCommand } from './watch-command.js';

/**
 * The command definitions of `eval-backend`: `runCli` parses with them, and docs/cli.md is
 * generated from them (`npm run docs`). `exitCode` reads what the action that ran set.
 */
export function cliProgram(io: CliIo): { program: Command; exitCode: () => number } {
  let code: number = EXIT.ok;
  const urlOption = () =>
    new Option('--url <url>', 'base URL of the service').env('EVAL_BACKEND_URL').default(DEFAULT_URL);
  const program = new Command('eval-backend')
    .description('Command line of the evaluation backend: ingest a catalog from CI, watch the consoles\' stream, read the deployment\'s status, add accounts, copy a store between SQLite and PostgreSQL.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .showHelpAfterError();

  program
    .command('ingest')
    .description('Ingest the catalog checkout the service reads (POST /ingest), with progress; exit 1 when a version fails.')
    .addOption(urlOption())
    .option('--catalog-version <token>', 'opaque token of this catalog (default: `git rev-parse HEAD` of the current directory)')
    .option('--no-catalog-version', 'send no token (the scan neither reuses the store nor moves the marker)')
    .option('--force', 're-ingest and re-render versions already stored (development only)')
    .option('--replace-catalog', 'let a whole scan replace the stored catalog: from another checkout than the store was ingested from, or pruning more than half of its versions (refused without it)')
    .option('--case <slug[@version]>', 'ingest only this case, or one version of it (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .action(async (options: { url: string; catalogVersion?: string | false; force?: boolean; replaceCatalog?: boolean; case?: string[] }) => {
      code = await ingestCommand(options, io);
    });

  program
    .command('watch')
    .description('Follow the console stream (GET /notifications) and print notifications, and with --runs every run transition.')
    .addOption(urlOption())
    .option('--runs', 'also print every in-flight run transition')
    .action(async (options: { url: string; runs?: boolean }) => {
      code = await watchCommand(options, io);
    });

  program
    .command('status')
    .description('Print readiness, the store, run jobs by state and harness cap, queue counts and connected workers.')
    .addOption(urlOption())
    .option('--json', 'print the raw GET /status answer')
    .action(async (options: { url: string; json?: boolean }) => {
      code = await statusCommand(options, io);
    });

  program
    .command('accounts')
    .description('Manage the auth service\'s accounts on this host (its DATA_DIR/auth.sqlite).')
    .command('add')
    .description('Make an account, reading its password from the first line of standard input: the way in when REGISTRATION=closed.')
    .argument('<username>', 'the account\'s username (letters, digits, _ . -)')
    .option('--display-name <name>', 'the name reviews show (default: the username)')
    .option('--data-dir <dir>', 'the auth service\'s DATA_DIR (default: DATA_DIR, else ./data)')
    .action(async (username: string, options: { displayName?: string; dataDir?: string }) => {
      // Loaded here: it opens SQLite through the auth service's modules, which no other command needs.
      const { addAccountCommand } = await import('./accounts-command.js');
      code = await addAccountCommand(username, options, io);
    });

  program
    .command('store')
    .description('Operate on the store itself (the service stopped).')
    .command('copy')
    .description(
      'Copy a whole store between SQLite and PostgreSQL, then check every table\'s row count and checksum; exit 1 on a mismatch. ' +
        'Stop the service (API and workers) first: rows written during the copy are not copied.',
    )
    .requiredOption('--from <store>', 'the store to copy: a SQLite file path or a postgres:// URL (read only; must be migrated by this build)')
    .requiredOption('--to <store>', 'where to copy it: a SQLite file path or a postgres:// URL (created or migrated first)')
    .option('--replace', 'empty a target that already holds rows (refused otherwise)')
    .action(async (options: { from: string; to: string; replace?: boolean }) => {
      // Loaded here: it opens both engines' drivers, which no other command needs.
      const { storeCopyCommand } = await import('./store-copy-command.js');
      code = await storeCopyCommand(options, io);
    });

  program
    .command('import-original')
    .description(
      'Import a deployment of the original system (TheTestCabinet) into this store, with a ledger per source table; exit 0 when every table balances, ' +
        '1 when one does not (or the import stopped: run it again to finish), 2 when it is refused before writing. Stop our service first.',
    )
    .requiredOption('--from <database>', 'the original\'s backend database: a SQLite file path or a postgres:// URL (read only, one snapshot)')
    .option('--auth-from <database>', 'the original auth service\'s database: a SQLite file path or a postgres:// URL')
    .option('--report <file>', 'where to write the ledger as JSON (default: DATA_DIR/import-<UTC stamp>.json)')
    .option('--dry-run', 'read, map and print the ledger; write nothing')
    .option('--merge', 'import into a store that already holds data, only where the ids are disjoint')
    .option('--accept-unreadable', 'exit 0 even when published runs are unreadable by this build')
    .option('--keep-schedules', 'keep plans and ladders that were running in the original running here (default: imported paused)')
    .option('--requeue-waiting', 'write waiting jobs that pass our launch rules as queued, for the next start to queue (needs --auth-from; default: imported canceled)')
    .option('--batch-rows <n>', 'source rows per page and per target transaction (default 256)')
    .action(async (options: { from: string; authFrom?: string; report?: string; dryRun?: boolean; merge?: boolean; acceptUnreadable?: boolean; keepSchedules?: boolean; requeueWaiting?: boolean; batchRows?: string }) => {
      // Loaded here: it opens both engines' drivers and the store layer, which no other command needs.
      const { importCommand } = await import('../import/import-command.js');
      code = await importCommand(options, io);
    });

  return { program, exitCode: () => code };
}

/**
 * `eval-backend <command>`: the command line for CI jobs and operators. Returns the exit
 * code; `bin/eval-backend.mjs` passes the process's own streams and exits with it.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const { program, exitCode } = cliProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not failures; every other parse error is a wrong argument.
      return error.exitCode === 0 ? EXIT.ok : EXIT.unusable;
    }
    if (error instanceof UnusableError) {
      io.stderr.write(`eval-backend: ${error.message}\n`);
      return EXIT.unusable;
    }
    if (io.signal.aborted) return EXIT.ok;
    throw error;
  }
}

/** What the process policy logs through (a pino logger fits). */
export interface PolicyLog {
  error(object: object, message: string): void;
  fatal(object: object, message: string): void;
}

let unhandled = 0;

/**
 * The process-wide failure policy of every entry point (API, worker, auth service): a
 * promise rejection nobody handled is logged with its stack and counted, and the process
 * keeps serving (one lost promise must not take a claim storm's answers down with it); an
 * uncaught exception is logged before Node ends the process as usual, since its state is
 * unknown after one.
 */
export function installProcessPolicy(log: PolicyLog): void {
  process.on('unhandledRejection', (reason) => {
    unhandled += 1;
    log.error({ err: reason, unhandledRejections: unhandled }, 'unhandled promise rejection (the process keeps running)');
  });
  process.on('uncaughtExceptionMonitor', (error, origin) => {
    log.fatal({ err: error, origin }, 'uncaught exception: the process exits');
  });
}

/** Unhandled rejections this process logged so far. */
export const unhandledRejections = () => unhandled;

import { ConfigError, loadConfig, type Config } from '../config.js';

/**
 * For entry points only (server, worker, auth service): the validated configuration, or
 * every bad variable printed and exit status 2, before anything starts.
 */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

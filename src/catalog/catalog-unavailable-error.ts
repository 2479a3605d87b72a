/**
 * The checkout itself cannot be read (missing root, missing `test-cases/`, a folder the
 * process may not list). A scan that meets it stops before it changes anything: an empty
 * answer from an unreadable folder would otherwise read as "every version was deleted".
 */
export class CatalogUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogUnavailableError';
  }
}

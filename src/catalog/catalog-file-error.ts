/**
 * An ingest-time problem with one file of a catalog checkout. The message always starts
 * with the file's path relative to the checkout root, so an author reading an ingest
 * report knows which file to open without a stack trace.
 */
export class CatalogFileError extends Error {
  constructor(
    /** Path relative to the checkout root, forward slashes. */
    readonly file: string,
    /** What is wrong, one sentence without the file name. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${reason}`, options);
    this.name = 'CatalogFileError';
  }
}

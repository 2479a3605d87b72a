/**
 * An import refused before anything was written (exit 2), with a message that names the
 * source, the table and the row ids at fault and what to do: never a stack trace.
 */
export class ImportRefused extends Error {
  override readonly name = 'ImportRefused';
}

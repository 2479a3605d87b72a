/**
 * The one test of "the disk refuses our writes", for SQLite, Redis and the file system alike:
 * SQLite answers SQLITE_FULL for a full disk (or a store at its size limit) and an
 * SQLITE_IOERR_* code when a write fails below it (EFBIG past a file-size limit, say); Node's
 * own file writes fail with ENOSPC, EDQUOT or EFBIG; Redis, whose append-only file or
 * snapshot cannot be written, answers MISCONF to every write; PostgreSQL reports a full disk
 * as SQLSTATE 53100 (disk_full). An error is taken as one when it, or
 * any error in its `cause` chain, carries such a code: errors that crossed from a worker
 * thread arrive as plain objects that keep it.
 */
const FS_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', 'EFBIG', '53100']);

export function isStorageFull(error: unknown): boolean {
  return storageFullCode(error) !== null;
}

/** The code that makes `error` a refusal of the disk (SQLITE_FULL, ENOSPC, ...), or null. */
export function storageFullCode(error: unknown): string | null {
  for (let seen = error, depth = 0; typeof seen === 'object' && seen !== null && depth < 10; seen = (seen as { cause?: unknown }).cause, depth += 1) {
    const { code, message } = seen as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (FS_CODES.has(code) || code.startsWith('SQLITE_IOERR'))) return code;
    // Redis on the same full disk refuses every write until it can persist again.
    if (typeof message === 'string' && message.startsWith('MISCONF ')) return 'MISCONF';
  }
  return null;
}

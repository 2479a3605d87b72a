import { randomFillSync } from 'node:crypto';

const TOKEN_BYTES = 24;
/** Tokens drawn per refill of the pool. */
const POOL_TOKENS = 256;
const pool = Buffer.alloc(TOKEN_BYTES * POOL_TOKENS);
let next = pool.length;

/**
 * A fresh per-job token: 24 bytes from the CSPRNG, base64url. The bytes come from a pool
 * refilled a few KiB at a time (as Node does for `randomUUID`), so a claim costs no
 * syscall of its own; every byte is handed out once.
 */
export function mintJobToken(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const token = pool.toString('base64url', next, next + TOKEN_BYTES);
  next += TOKEN_BYTES;
  return token;
}

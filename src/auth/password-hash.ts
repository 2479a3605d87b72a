import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { verify as verifyArgon2 } from '@node-rs/argon2';

// scrypt is memory-hard: N=2^15, r=8 costs 32 MiB and a few tens of ms per hash.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((done, fail) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? fail(error) : done(key))),
  );
}

/** `scrypt$N$r$p$salt$key`, salt and key base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Whether `password` matches `stored`: our scrypt scheme, or the Argon2id PHC string of an
 * account imported from the original system, which hashed the password's raw bytes (no
 * normalisation) with `Argon2::default()`. Argon2 verifies off the event loop; a malformed
 * hash is a mismatch, never an error.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) return verifyArgon2(stored, password).catch(() => false);
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of another scheme than ours (an imported Argon2id one), replaced by ours at the next successful login. */
export const needsRehash = (stored: string): boolean => !stored.startsWith('scrypt$');

let decoy: Promise<string> | null = null;

/** A hash of a password nobody has, so an unknown username costs as much as a wrong password. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

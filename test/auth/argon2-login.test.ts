import { hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuth, type TestAuth } from '../helpers/test-auth.js';

// D3 of the original's import: accounts keep the Argon2id hashes the original made, and log in with the same password.
describe('an account with an Argon2id password hash (imported from the original)', () => {
  let auth: TestAuth;
  // A ligature NFKC would fold to "fi": the original hashed the raw bytes, so the raw password must match.
  const password = 'ﬁne-old-secret';
  beforeAll(async () => {
    auth = await startTestAuth();
    const phc = await hash(password); // Argon2id, m=19456, t=2, p=1: the RustCrypto crate's Argon2::default().
    await auth.store.db.insertInto('accounts').values([
      { id: 'ck-ada', username: 'ada', display_name: 'Ada', password_hash: phc, created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'ck-bad', username: 'mangled', display_name: 'M', password_hash: '$argon2id$v=19$nonsense', created_at: '2026-01-01T00:00:00.000Z' },
    ]).execute();
  });
  afterAll(async () => {
    await auth.close();
  });
  const login = (username: string, secret: string) =>
    auth.app.inject({ method: 'POST', url: '/auth/login', payload: { username, password: secret } });
  const storedHash = async () => (await auth.store.db.selectFrom('accounts').select('password_hash').where('id', '=', 'ck-ada').executeTakeFirstOrThrow()).password_hash;

  it('refuses a wrong password, and the NFKC-folded one', async () => {
    expect((await login('ada', 'wrong')).statusCode).toBe(401);
    expect((await login('ada', password.normalize('NFKC'))).statusCode).toBe(401);
    expect(await storedHash()).toMatch(/^\$argon2id\$/);
  });

  it('logs in with the original password, then keeps working once rehashed to our scheme', async () => {
    const first = await login('ada', password);
    expect(first.statusCode).toBe(200);
    expect(first.json().account).toMatchObject({ id: 'ck-ada', username: 'ada' });
    expect(await storedHash()).toMatch(/^scrypt\$/);
    expect((await login('ada', password)).statusCode).toBe(200);
    expect((await login('ada', 'wrong')).statusCode).toBe(401);
  });

  it('takes a malformed Argon2 hash for a mismatch, never an error', async () => {
    expect((await login('mangled', 'anything')).statusCode).toBe(401);
  });
});

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { sameTextIgnoringCase } from '../db/dialect.js';
import type { AuthStore } from './auth-store.js';

export interface AccountRow {
  id: string;
  username: string;
  displayName: string;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export function accountStore({ engine, db }: AuthStore) {
  return {
    /** Null when the username is taken, in any case. */
    async create(username: string, displayName: string, passwordHash: string): Promise<AccountRow | null> {
      const id = randomUUID();
      // DO NOTHING with no target covers the case-folded username index on PostgreSQL as well as the key.
      const inserted = await db.insertInto('accounts')
        .values({ id, username, display_name: displayName, password_hash: passwordHash, created_at: new Date().toISOString() })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return inserted.numInsertedOrUpdatedRows === 0n ? null : { id, username, displayName };
    },
    /** The account whose username matches, ignoring case. */
    findByUsername: async (username: string) => (await db.selectFrom('accounts')
      .select(['id', 'username', 'display_name as displayName', 'password_hash as passwordHash'])
      .where(sameTextIgnoringCase(engine, sql.ref('username'), sql.val(username)))
      .executeTakeFirst()) ?? null,
    /** A fresh 32-byte token; only its hash is stored. */
    async issueToken(accountId: string, lifetimeMs: number | null): Promise<string> {
      const token = randomBytes(32).toString('hex');
      const now = Date.now();
      const expires = lifetimeMs === null ? null : new Date(now + lifetimeMs).toISOString();
      await db.insertInto('tokens').values({ token_hash: hashToken(token), account_id: accountId, created_at: new Date(now).toISOString(), expires_at: expires }).execute();
      return token;
    },
    accountForToken: async (token: string): Promise<AccountRow | null> => (await db.selectFrom('tokens as t')
      .innerJoin('accounts as a', 'a.id', 't.account_id')
      .select(['a.id', 'a.username', 'a.display_name as displayName'])
      .where('t.token_hash', '=', hashToken(token))
      .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', new Date().toISOString())]))
      .executeTakeFirst()) ?? null,
    /** Replaces an account's password hash (an imported scheme rehashed to ours after a login). */
    setPasswordHash: async (id: string, passwordHash: string): Promise<void> =>
      void await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', id).execute(),
    revokeToken: async (token: string): Promise<void> => void await db.deleteFrom('tokens').where('token_hash', '=', hashToken(token)).execute(),
    purgeExpired: async (): Promise<number> => Number((await db.deleteFrom('tokens')
      .where('expires_at', 'is not', null).where('expires_at', '<=', new Date().toISOString())
      .executeTakeFirst()).numDeletedRows),
  };
}

export type AccountStore = ReturnType<typeof accountStore>;
